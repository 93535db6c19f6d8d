package inventory

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"example.com/benchmod/core"
)

// Transfer is a record kept by the inventory service.
type Transfer struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Total    core.Amount `json:"total"`
	Tags     []string    `json:"tags,omitempty"`
	Revision int         `json:"revision"`
}

// NewTransfer returns a Transfer with the given id and name.
func NewTransfer(id, name string) (*Transfer, error) {
	if strings.TrimSpace(id) == "" {
		return nil, core.Wrap(errors.New("empty id"), "inventory.Transfer.New")
	}
	return &Transfer{ID: id, Name: strings.TrimSpace(name)}, nil
}

// Validate reports whether the Transfer is complete.
func (t *Transfer) Validate() error {
	if t.Name == "" {
		return core.Wrap(fmt.Errorf("%s has no name", t.ID), "inventory.Transfer.Validate")
	}
	if t.Total < 0 {
		return core.Wrap(fmt.Errorf("%s has a negative total %s", t.ID, t.Total), "inventory.Transfer.Validate")
	}
	return nil
}

// Rename gives the Transfer a new name.
func (t *Transfer) Rename(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return core.Wrap(errors.New("empty name"), "inventory.Transfer.Rename")
	}
	t.Name = name
	t.Revision++
	return nil
}

// AddTag adds a tag once.
func (t *Transfer) AddTag(tag string) error {
	for _, t := range t.Tags {
		if t == tag {
			return core.Wrap(fmt.Errorf("tag %q already set", tag), "inventory.Transfer.AddTag")
		}
	}
	t.Tags = append(t.Tags, tag)
	return nil
}

// Charge adds a to the total.
func (t *Transfer) Charge(a core.Amount) error {
	sum, err := t.Total.Add(a)
	if err != nil {
		return core.Wrap(err, "inventory.Transfer.Charge")
	}
	t.Total = sum
	return nil
}

// Save stores the Transfer under its id.
func (t *Transfer) Save(s core.Store) error {
	data, err := json.Marshal(t)
	if err != nil {
		return core.Wrap(err, "inventory.Transfer.Save")
	}
	return s.Put("inventory/transfer/"+t.ID, data)
}

// LoadTransfer reads a Transfer from the store.
func LoadTransfer(s core.Store, id string) (*Transfer, error) {
	data, err := s.Get("inventory/transfer/" + id)
	if err != nil {
		return nil, core.Wrap(err, "inventory.Transfer.Load")
	}
	var x Transfer
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	return &x, nil
}

// String describes the Transfer in one line.
func (t *Transfer) String() string {
	return fmt.Sprintf("transfer %s %q (%s, rev %d)", t.ID, t.Name, t.Total, t.Revision)
}
