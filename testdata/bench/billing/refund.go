package billing

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"example.com/benchmod/core"
)

// Refund is a record kept by the billing service.
type Refund struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Total    core.Amount `json:"total"`
	Tags     []string    `json:"tags,omitempty"`
	Revision int         `json:"revision"`
}

// NewRefund returns a Refund with the given id and name.
func NewRefund(id, name string) (*Refund, error) {
	if strings.TrimSpace(id) == "" {
		return nil, core.Wrap(errors.New("empty id"), "billing.Refund.New")
	}
	return &Refund{ID: id, Name: strings.TrimSpace(name)}, nil
}

// Validate reports whether the Refund is complete.
func (r *Refund) Validate() error {
	if r.Name == "" {
		return core.Wrap(fmt.Errorf("%s has no name", r.ID), "billing.Refund.Validate")
	}
	if r.Total < 0 {
		return core.Wrap(fmt.Errorf("%s has a negative total %s", r.ID, r.Total), "billing.Refund.Validate")
	}
	return nil
}

// Rename gives the Refund a new name.
func (r *Refund) Rename(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return core.Wrap(errors.New("empty name"), "billing.Refund.Rename")
	}
	r.Name = name
	r.Revision++
	return nil
}

// AddTag adds a tag once.
func (r *Refund) AddTag(tag string) error {
	for _, t := range r.Tags {
		if t == tag {
			return core.Wrap(fmt.Errorf("tag %q already set", tag), "billing.Refund.AddTag")
		}
	}
	r.Tags = append(r.Tags, tag)
	return nil
}

// Charge adds a to the total.
func (r *Refund) Charge(a core.Amount) error {
	sum, err := r.Total.Add(a)
	if err != nil {
		return core.Wrap(err, "billing.Refund.Charge")
	}
	r.Total = sum
	return nil
}

// Save stores the Refund under its id.
func (r *Refund) Save(s core.Store) error {
	data, err := json.Marshal(r)
	if err != nil {
		return core.Wrap(err, "billing.Refund.Save")
	}
	return s.Put("billing/refund/"+r.ID, data)
}

// LoadRefund reads a Refund from the store.
func LoadRefund(s core.Store, id string) (*Refund, error) {
	data, err := s.Get("billing/refund/" + id)
	if err != nil {
		return nil, core.Wrap(err, "billing.Refund.Load")
	}
	var x Refund
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	return &x, nil
}

// String describes the Refund in one line.
func (r *Refund) String() string {
	return fmt.Sprintf("refund %s %q (%s, rev %d)", r.ID, r.Name, r.Total, r.Revision)
}
