package billing

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"example.com/benchmod/core"
)

// Tax is a record kept by the billing service.
type Tax struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Total    core.Amount `json:"total"`
	Tags     []string    `json:"tags,omitempty"`
	Revision int         `json:"revision"`
}

// NewTax returns a Tax with the given id and name.
func NewTax(id, name string) (*Tax, error) {
	if strings.TrimSpace(id) == "" {
		return nil, core.Wrap(errors.New("empty id"), "billing.Tax.New")
	}
	return &Tax{ID: id, Name: strings.TrimSpace(name)}, nil
}

// Validate reports whether the Tax is complete.
func (t *Tax) Validate() error {
	if t.Name == "" {
		return core.Wrap(fmt.Errorf("%s has no name", t.ID), "billing.Tax.Validate")
	}
	if t.Total < 0 {
		return core.Wrap(fmt.Errorf("%s has a negative total %s", t.ID, t.Total), "billing.Tax.Validate")
	}
	return nil
}

// Rename gives the Tax a new name.
func (t *Tax) Rename(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return core.Wrap(errors.New("empty name"), "billing.Tax.Rename")
	}
	t.Name = name
	t.Revision++
	return nil
}

// AddTag adds a tag once.
func (t *Tax) AddTag(tag string) error {
	for _, t := range t.Tags {
		if t == tag {
			return core.Wrap(fmt.Errorf("tag %q already set", tag), "billing.Tax.AddTag")
		}
	}
	t.Tags = append(t.Tags, tag)
	return nil
}

// Charge adds a to the total.
func (t *Tax) Charge(a core.Amount) error {
	sum, err := t.Total.Add(a)
	if err != nil {
		return core.Wrap(err, "billing.Tax.Charge")
	}
	t.Total = sum
	return nil
}

// Save stores the Tax under its id.
func (t *Tax) Save(s core.Store) error {
	data, err := json.Marshal(t)
	if err != nil {
		return core.Wrap(err, "billing.Tax.Save")
	}
	return s.Put("billing/tax/"+t.ID, data)
}

// LoadTax reads a Tax from the store.
func LoadTax(s core.Store, id string) (*Tax, error) {
	data, err := s.Get("billing/tax/" + id)
	if err != nil {
		return nil, core.Wrap(err, "billing.Tax.Load")
	}
	var x Tax
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	return &x, nil
}

// String describes the Tax in one line.
func (t *Tax) String() string {
	return fmt.Sprintf("tax %s %q (%s, rev %d)", t.ID, t.Name, t.Total, t.Revision)
}
