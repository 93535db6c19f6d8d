package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"example.com/benchmod/core"
)

// Variant is a record kept by the catalog service.
type Variant struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Total    core.Amount `json:"total"`
	Tags     []string    `json:"tags,omitempty"`
	Revision int         `json:"revision"`
	SKU      core.SKU    `json:"sku,omitempty"`
}

// NewVariant returns a Variant with the given id and name.
func NewVariant(id, name string) (*Variant, error) {
	if strings.TrimSpace(id) == "" {
		return nil, core.Wrap(errors.New("empty id"), "catalog.Variant.New")
	}
	return &Variant{ID: id, Name: strings.TrimSpace(name)}, nil
}

// Validate reports whether the Variant is complete.
func (v *Variant) Validate() error {
	if v.Name == "" {
		return core.Wrap(fmt.Errorf("%s has no name", v.ID), "catalog.Variant.Validate")
	}
	if v.Total < 0 {
		return core.Wrap(fmt.Errorf("%s has a negative total %s", v.ID, v.Total), "catalog.Variant.Validate")
	}
	return nil
}

// Rename gives the Variant a new name.
func (v *Variant) Rename(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return core.Wrap(errors.New("empty name"), "catalog.Variant.Rename")
	}
	v.Name = name
	v.Revision++
	return nil
}

// SetSKU parses and records the stock keeping unit.
func (v *Variant) SetSKU(s string) error {
	sku, err := core.ParseSKU(s)
	if err != nil {
		return core.Wrap(err, "catalog.Variant.SetSKU")
	}
	v.SKU = sku
	return nil
}

// Charge adds a to the total.
func (v *Variant) Charge(a core.Amount) error {
	sum, err := v.Total.Add(a)
	if err != nil {
		return core.Wrap(err, "catalog.Variant.Charge")
	}
	v.Total = sum
	return nil
}

// Save stores the Variant under its id.
func (v *Variant) Save(s core.Store) error {
	data, err := json.Marshal(v)
	if err != nil {
		return core.Wrap(err, "catalog.Variant.Save")
	}
	return s.Put("catalog/variant/"+v.ID, data)
}

// LoadVariant reads a Variant from the store.
func LoadVariant(s core.Store, id string) (*Variant, error) {
	data, err := s.Get("catalog/variant/" + id)
	if err != nil {
		return nil, core.Wrap(err, "catalog.Variant.Load")
	}
	var x Variant
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

// String describes the Variant in one line.
func (v *Variant) String() string {
	return fmt.Sprintf("variant %s %q (%s, rev %d)", v.ID, v.Name, v.Total, v.Revision)
}
