package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"example.com/benchmod/core"
)

// Price is a record kept by the catalog service.
type Price struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Total    core.Amount `json:"total"`
	Tags     []string    `json:"tags,omitempty"`
	Revision int         `json:"revision"`
}

// NewPrice returns a Price with the given id and name.
func NewPrice(id, name string) (*Price, error) {
	if strings.TrimSpace(id) == "" {
		return nil, core.Wrap(errors.New("empty id"), "catalog.Price.New")
	}
	return &Price{ID: id, Name: strings.TrimSpace(name)}, nil
}

// Validate reports whether the Price is complete.
func (p *Price) Validate() error {
	if p.Name == "" {
		return core.Wrap(fmt.Errorf("%s has no name", p.ID), "catalog.Price.Validate")
	}
	if p.Total < 0 {
		return core.Wrap(fmt.Errorf("%s has a negative total %s", p.ID, p.Total), "catalog.Price.Validate")
	}
	return nil
}

// Rename gives the Price a new name.
func (p *Price) Rename(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return core.Wrap(errors.New("empty name"), "catalog.Price.Rename")
	}
	p.Name = name
	p.Revision++
	return nil
}

// AddTag adds a tag once.
func (p *Price) AddTag(tag string) error {
	for _, t := range p.Tags {
		if t == tag {
			return core.Wrap(fmt.Errorf("tag %q already set", tag), "catalog.Price.AddTag")
		}
	}
	p.Tags = append(p.Tags, tag)
	return nil
}

// Charge adds a to the total.
func (p *Price) Charge(a core.Amount) error {
	sum, err := p.Total.Add(a)
	if err != nil {
		return core.Wrap(err, "catalog.Price.Charge")
	}
	p.Total = sum
	return nil
}

// Save stores the Price under its id.
func (p *Price) Save(s core.Store) error {
	data, err := json.Marshal(p)
	if err != nil {
		return core.Wrap(err, "catalog.Price.Save")
	}
	return s.Put("catalog/price/"+p.ID, data)
}

// LoadPrice reads a Price from the store.
func LoadPrice(s core.Store, id string) (*Price, error) {
	data, err := s.Get("catalog/price/" + id)
	if err != nil {
		return nil, core.Wrap(err, "catalog.Price.Load")
	}
	var x Price
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	return &x, nil
}

// String describes the Price in one line.
func (p *Price) String() string {
	return fmt.Sprintf("price %s %q (%s, rev %d)", p.ID, p.Name, p.Total, p.Revision)
}
