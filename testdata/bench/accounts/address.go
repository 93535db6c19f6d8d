package accounts

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"example.com/benchmod/core"
)

// Address is a record kept by the accounts service.
type Address struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Total    core.Amount `json:"total"`
	Tags     []string    `json:"tags,omitempty"`
	Revision int         `json:"revision"`
}

// NewAddress returns an Address with the given id and name.
func NewAddress(id, name string) (*Address, error) {
	if strings.TrimSpace(id) == "" {
		return nil, core.Wrap(errors.New("empty id"), "accounts.Address.New")
	}
	return &Address{ID: id, Name: strings.TrimSpace(name)}, nil
}

// Validate reports whether the Address is complete.
func (ad *Address) Validate() error {
	if ad.Name == "" {
		return core.Wrap(fmt.Errorf("%s has no name", ad.ID), "accounts.Address.Validate")
	}
	if ad.Total < 0 {
		return core.Wrap(fmt.Errorf("%s has a negative total %s", ad.ID, ad.Total), "accounts.Address.Validate")
	}
	return nil
}

// Rename gives the Address a new name.
func (ad *Address) Rename(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return core.Wrap(errors.New("empty name"), "accounts.Address.Rename")
	}
	ad.Name = name
	ad.Revision++
	return nil
}

// AddTag adds a tag once.
func (ad *Address) AddTag(tag string) error {
	for _, t := range ad.Tags {
		if t == tag {
			return core.Wrap(fmt.Errorf("tag %q already set", tag), "accounts.Address.AddTag")
		}
	}
	ad.Tags = append(ad.Tags, tag)
	return nil
}

// Charge adds a to the total.
func (ad *Address) Charge(a core.Amount) error {
	sum, err := ad.Total.Add(a)
	if err != nil {
		return core.Wrap(err, "accounts.Address.Charge")
	}
	ad.Total = sum
	return nil
}

// Save stores the Address under its id.
func (ad *Address) Save(s core.Store) error {
	data, err := json.Marshal(ad)
	if err != nil {
		return core.Wrap(err, "accounts.Address.Save")
	}
	return s.Put("accounts/address/"+ad.ID, data)
}

// LoadAddress reads an Address from the store.
func LoadAddress(s core.Store, id string) (*Address, error) {
	data, err := s.Get("accounts/address/" + id)
	if err != nil {
		return nil, core.Wrap(err, "accounts.Address.Load")
	}
	var x Address
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	return &x, nil
}

// String describes the Address in one line.
func (ad *Address) String() string {
	return fmt.Sprintf("address %s %q (%s, rev %d)", ad.ID, ad.Name, ad.Total, ad.Revision)
}
