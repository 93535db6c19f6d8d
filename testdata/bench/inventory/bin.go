package inventory

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"example.com/benchmod/core"
)

// Bin is a record kept by the inventory service.
type Bin struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Total    core.Amount `json:"total"`
	Tags     []string    `json:"tags,omitempty"`
	Revision int         `json:"revision"`
}

// NewBin returns a Bin with the given id and name.
func NewBin(id, name string) (*Bin, error) {
	if strings.TrimSpace(id) == "" {
		return nil, core.Wrap(errors.New("empty id"), "inventory.Bin.New")
	}
	return &Bin{ID: id, Name: strings.TrimSpace(name)}, nil
}

// Validate reports whether the Bin is complete.
func (b *Bin) Validate() error {
	if b.Name == "" {
		return core.Wrap(fmt.Errorf("%s has no name", b.ID), "inventory.Bin.Validate")
	}
	if b.Total < 0 {
		return core.Wrap(fmt.Errorf("%s has a negative total %s", b.ID, b.Total), "inventory.Bin.Validate")
	}
	return nil
}

// Rename gives the Bin a new name.
func (b *Bin) Rename(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return core.Wrap(errors.New("empty name"), "inventory.Bin.Rename")
	}
	b.Name = name
	b.Revision++
	return nil
}

// AddTag adds a tag once.
func (b *Bin) AddTag(tag string) error {
	for _, t := range b.Tags {
		if t == tag {
			return core.Wrap(fmt.Errorf("tag %q already set", tag), "inventory.Bin.AddTag")
		}
	}
	b.Tags = append(b.Tags, tag)
	return nil
}

// Charge adds a to the total.
func (b *Bin) Charge(a core.Amount) error {
	sum, err := b.Total.Add(a)
	if err != nil {
		return core.Wrap(err, "inventory.Bin.Charge")
	}
	b.Total = sum
	return nil
}

// Save stores the Bin under its id.
func (b *Bin) Save(s core.Store) error {
	data, err := json.Marshal(b)
	if err != nil {
		return core.Wrap(err, "inventory.Bin.Save")
	}
	return s.Put("inventory/bin/"+b.ID, data)
}

// LoadBin reads a Bin from the store.
func LoadBin(s core.Store, id string) (*Bin, error) {
	data, err := s.Get("inventory/bin/" + id)
	if err != nil {
		return nil, core.Wrap(err, "inventory.Bin.Load")
	}
	var x Bin
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	return &x, nil
}

// String describes the Bin in one line.
func (b *Bin) String() string {
	return fmt.Sprintf("bin %s %q (%s, rev %d)", b.ID, b.Name, b.Total, b.Revision)
}
