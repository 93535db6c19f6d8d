package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"example.com/benchmod/core"
)

// Product is a record kept by the catalog service.
type Product struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Total    core.Amount `json:"total"`
	Tags     []string    `json:"tags,omitempty"`
	Revision int         `json:"revision"`
	SKU      core.SKU    `json:"sku,omitempty"`
}

// NewProduct returns a Product with the given id and name.
func NewProduct(id, name string) (*Product, error) {
	if strings.TrimSpace(id) == "" {
		return nil, core.Wrap(errors.New("empty id"), "catalog.Product.New")
	}
	return &Product{ID: id, Name: strings.TrimSpace(name)}, nil
}

// Validate reports whether the Product is complete.
func (p *Product) Validate() error {
	if p.Name == "" {
		return core.Wrap(fmt.Errorf("%s has no name", p.ID), "catalog.Product.Validate")
	}
	if p.Total < 0 {
		return core.Wrap(fmt.Errorf("%s has a negative total %s", p.ID, p.Total), "catalog.Product.Validate")
	}
	return nil
}

// Rename gives the Product a new name.
func (p *Product) Rename(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return core.Wrap(errors.New("empty name"), "catalog.Product.Rename")
	}
	p.Name = name
	p.Revision++
	return nil
}

// SetSKU parses and records the stock keeping unit.
func (p *Product) SetSKU(s string) error {
	sku, err := core.ParseSKU(s)
	if err != nil {
		return core.Wrap(err, "catalog.Product.SetSKU")
	}
	p.SKU = sku
	return nil
}

// Charge adds a to the total.
func (p *Product) Charge(a core.Amount) error {
	sum, err := p.Total.Add(a)
	if err != nil {
		return core.Wrap(err, "catalog.Product.Charge")
	}
	p.Total = sum
	return nil
}

// Save stores the Product under its id.
func (p *Product) Save(s core.Store) error {
	data, err := json.Marshal(p)
	if err != nil {
		return core.Wrap(err, "catalog.Product.Save")
	}
	return s.Put("catalog/product/"+p.ID, data)
}

// LoadProduct reads a Product from the store.
func LoadProduct(s core.Store, id string) (*Product, error) {
	data, err := s.Get("catalog/product/" + id)
	if err != nil {
		return nil, core.Wrap(err, "catalog.Product.Load")
	}
	var x Product
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

// String describes the Product in one line.
func (p *Product) String() string {
	return fmt.Sprintf("product %s %q (%s, rev %d)", p.ID, p.Name, p.Total, p.Revision)
}
