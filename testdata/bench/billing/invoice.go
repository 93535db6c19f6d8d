package billing

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"example.com/benchmod/core"
)

// Invoice is a record kept by the billing service.
type Invoice struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Total    core.Amount `json:"total"`
	Tags     []string    `json:"tags,omitempty"`
	Revision int         `json:"revision"`
}

// NewInvoice returns an Invoice with the given id and name.
func NewInvoice(id, name string) (*Invoice, error) {
	if strings.TrimSpace(id) == "" {
		return nil, core.Wrap(errors.New("empty id"), "billing.Invoice.New")
	}
	return &Invoice{ID: id, Name: strings.TrimSpace(name)}, nil
}

// Validate reports whether the Invoice is complete.
func (i *Invoice) Validate() error {
	if i.Name == "" {
		return core.Wrap(fmt.Errorf("%s has no name", i.ID), "billing.Invoice.Validate")
	}
	if i.Total < 0 {
		return core.Wrap(fmt.Errorf("%s has a negative total %s", i.ID, i.Total), "billing.Invoice.Validate")
	}
	return nil
}

// Rename gives the Invoice a new name.
func (i *Invoice) Rename(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return core.Wrap(errors.New("empty name"), "billing.Invoice.Rename")
	}
	i.Name = name
	i.Revision++
	return nil
}

// AddTag adds a tag once.
func (i *Invoice) AddTag(tag string) error {
	for _, t := range i.Tags {
		if t == tag {
			return core.Wrap(fmt.Errorf("tag %q already set", tag), "billing.Invoice.AddTag")
		}
	}
	i.Tags = append(i.Tags, tag)
	return nil
}

// Charge adds a to the total.
func (i *Invoice) Charge(a core.Amount) error {
	sum, err := i.Total.Add(a)
	if err != nil {
		return core.Wrap(err, "billing.Invoice.Charge")
	}
	i.Total = sum
	return nil
}

// Save stores the Invoice under its id.
func (i *Invoice) Save(s core.Store) error {
	data, err := json.Marshal(i)
	if err != nil {
		return core.Wrap(err, "billing.Invoice.Save")
	}
	return s.Put("billing/invoice/"+i.ID, data)
}

// LoadInvoice reads an Invoice from the store.
func LoadInvoice(s core.Store, id string) (*Invoice, error) {
	data, err := s.Get("billing/invoice/" + id)
	if err != nil {
		return nil, core.Wrap(err, "billing.Invoice.Load")
	}
	var x Invoice
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	return &x, nil
}

// String describes the Invoice in one line.
func (i *Invoice) String() string {
	return fmt.Sprintf("invoice %s %q (%s, rev %d)", i.ID, i.Name, i.Total, i.Revision)
}
