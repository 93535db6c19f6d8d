package billing

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"example.com/benchmod/core"
)

// Payment is a record kept by the billing service.
type Payment struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Total    core.Amount `json:"total"`
	Tags     []string    `json:"tags,omitempty"`
	Revision int         `json:"revision"`
}

// NewPayment returns a Payment with the given id and name.
func NewPayment(id, name string) (*Payment, error) {
	if strings.TrimSpace(id) == "" {
		return nil, core.Wrap(errors.New("empty id"), "billing.Payment.New")
	}
	return &Payment{ID: id, Name: strings.TrimSpace(name)}, nil
}

// Validate reports whether the Payment is complete.
func (p *Payment) Validate() error {
	if p.Name == "" {
		return core.Wrap(fmt.Errorf("%s has no name", p.ID), "billing.Payment.Validate")
	}
	if p.Total < 0 {
		return core.Wrap(fmt.Errorf("%s has a negative total %s", p.ID, p.Total), "billing.Payment.Validate")
	}
	return nil
}

// Rename gives the Payment a new name.
func (p *Payment) Rename(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return core.Wrap(errors.New("empty name"), "billing.Payment.Rename")
	}
	p.Name = name
	p.Revision++
	return nil
}

// AddTag adds a tag once.
func (p *Payment) AddTag(tag string) error {
	for _, t := range p.Tags {
		if t == tag {
			return core.Wrap(fmt.Errorf("tag %q already set", tag), "billing.Payment.AddTag")
		}
	}
	p.Tags = append(p.Tags, tag)
	return nil
}

// Charge adds a to the total.
func (p *Payment) Charge(a core.Amount) error {
	sum, err := p.Total.Add(a)
	if err != nil {
		return core.Wrap(err, "billing.Payment.Charge")
	}
	p.Total = sum
	return nil
}

// Save stores the Payment under its id.
func (p *Payment) Save(s core.Store) error {
	data, err := json.Marshal(p)
	if err != nil {
		return core.Wrap(err, "billing.Payment.Save")
	}
	return s.Put("billing/payment/"+p.ID, data)
}

// LoadPayment reads a Payment from the store.
func LoadPayment(s core.Store, id string) (*Payment, error) {
	data, err := s.Get("billing/payment/" + id)
	if err != nil {
		return nil, core.Wrap(err, "billing.Payment.Load")
	}
	var x Payment
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	return &x, nil
}

// String describes the Payment in one line.
func (p *Payment) String() string {
	return fmt.Sprintf("payment %s %q (%s, rev %d)", p.ID, p.Name, p.Total, p.Revision)
}
