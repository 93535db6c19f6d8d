package inventory

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"example.com/benchmod/core"
)

// Warehouse is a record kept by the inventory service.
type Warehouse struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Total    core.Amount `json:"total"`
	Tags     []string    `json:"tags,omitempty"`
	Revision int         `json:"revision"`
}

// NewWarehouse returns a Warehouse with the given id and name.
func NewWarehouse(id, name string) (*Warehouse, error) {
	if strings.TrimSpace(id) == "" {
		return nil, core.Wrap(errors.New("empty id"), "inventory.Warehouse.New")
	}
	return &Warehouse{ID: id, Name: strings.TrimSpace(name)}, nil
}

// Validate reports whether the Warehouse is complete.
func (w *Warehouse) Validate() error {
	if w.Name == "" {
		return core.Wrap(fmt.Errorf("%s has no name", w.ID), "inventory.Warehouse.Validate")
	}
	if w.Total < 0 {
		return core.Wrap(fmt.Errorf("%s has a negative total %s", w.ID, w.Total), "inventory.Warehouse.Validate")
	}
	return nil
}

// Rename gives the Warehouse a new name.
func (w *Warehouse) Rename(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return core.Wrap(errors.New("empty name"), "inventory.Warehouse.Rename")
	}
	w.Name = name
	w.Revision++
	return nil
}

// AddTag adds a tag once.
func (w *Warehouse) AddTag(tag string) error {
	for _, t := range w.Tags {
		if t == tag {
			return core.Wrap(fmt.Errorf("tag %q already set", tag), "inventory.Warehouse.AddTag")
		}
	}
	w.Tags = append(w.Tags, tag)
	return nil
}

// Charge adds a to the total.
func (w *Warehouse) Charge(a core.Amount) error {
	sum, err := w.Total.Add(a)
	if err != nil {
		return core.Wrap(err, "inventory.Warehouse.Charge")
	}
	w.Total = sum
	return nil
}

// Save stores the Warehouse under its id.
func (w *Warehouse) Save(s core.Store) error {
	data, err := json.Marshal(w)
	if err != nil {
		return core.Wrap(err, "inventory.Warehouse.Save")
	}
	return s.Put("inventory/warehouse/"+w.ID, data)
}

// LoadWarehouse reads a Warehouse from the store.
func LoadWarehouse(s core.Store, id string) (*Warehouse, error) {
	data, err := s.Get("inventory/warehouse/" + id)
	if err != nil {
		return nil, core.Wrap(err, "inventory.Warehouse.Load")
	}
	var x Warehouse
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	return &x, nil
}

// String describes the Warehouse in one line.
func (w *Warehouse) String() string {
	return fmt.Sprintf("warehouse %s %q (%s, rev %d)", w.ID, w.Name, w.Total, w.Revision)
}
