package inventory

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"example.com/benchmod/core"
)

// Item is a record kept by the inventory service.
type Item struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Total    core.Amount `json:"total"`
	Tags     []string    `json:"tags,omitempty"`
	Revision int         `json:"revision"`
	SKU      core.SKU    `json:"sku,omitempty"`
}

// NewItem returns an Item with the given id and name.
func NewItem(id, name string) (*Item, error) {
	if strings.TrimSpace(id) == "" {
		return nil, core.Wrap(errors.New("empty id"), "inventory.Item.New")
	}
	return &Item{ID: id, Name: strings.TrimSpace(name)}, nil
}

// Validate reports whether the Item is complete.
func (i *Item) Validate() error {
	if i.Name == "" {
		return core.Wrap(fmt.Errorf("%s has no name", i.ID), "inventory.Item.Validate")
	}
	if i.Total < 0 {
		return core.Wrap(fmt.Errorf("%s has a negative total %s", i.ID, i.Total), "inventory.Item.Validate")
	}
	return nil
}

// Rename gives the Item a new name.
func (i *Item) Rename(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return core.Wrap(errors.New("empty name"), "inventory.Item.Rename")
	}
	i.Name = name
	i.Revision++
	return nil
}

// SetSKU parses and records the stock keeping unit.
func (i *Item) SetSKU(s string) error {
	sku, err := core.ParseSKU(s)
	if err != nil {
		return core.Wrap(err, "inventory.Item.SetSKU")
	}
	i.SKU = sku
	return nil
}

// Charge adds a to the total.
func (i *Item) Charge(a core.Amount) error {
	sum, err := i.Total.Add(a)
	if err != nil {
		return core.Wrap(err, "inventory.Item.Charge")
	}
	i.Total = sum
	return nil
}

// Save stores the Item under its id.
func (i *Item) Save(s core.Store) error {
	data, err := json.Marshal(i)
	if err != nil {
		return core.Wrap(err, "inventory.Item.Save")
	}
	return s.Put("inventory/item/"+i.ID, data)
}

// LoadItem reads an Item from the store.
func LoadItem(s core.Store, id string) (*Item, error) {
	data, err := s.Get("inventory/item/" + id)
	if err != nil {
		return nil, core.Wrap(err, "inventory.Item.Load")
	}
	var x Item
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	if x.SKU != "" {
		if _, err := core.ParseSKU(string(x.SKU)); err != nil {
			return nil, err
		}
	}
	return &x, nil
}

// String describes the Item in one line.
func (i *Item) String() string {
	return fmt.Sprintf("item %s %q (%s, rev %d)", i.ID, i.Name, i.Total, i.Revision)
}
