package accounts

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"example.com/benchmod/core"
)

// Customer is a record kept by the accounts service.
type Customer struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Total    core.Amount `json:"total"`
	Tags     []string    `json:"tags,omitempty"`
	Revision int         `json:"revision"`
}

// NewCustomer returns a Customer with the given id and name.
func NewCustomer(id, name string) (*Customer, error) {
	if strings.TrimSpace(id) == "" {
		return nil, core.Wrap(errors.New("empty id"), "accounts.Customer.New")
	}
	return &Customer{ID: id, Name: strings.TrimSpace(name)}, nil
}

// Validate reports whether the Customer is complete.
func (c *Customer) Validate() error {
	if c.Name == "" {
		return core.Wrap(fmt.Errorf("%s has no name", c.ID), "accounts.Customer.Validate")
	}
	if c.Total < 0 {
		return core.Wrap(fmt.Errorf("%s has a negative total %s", c.ID, c.Total), "accounts.Customer.Validate")
	}
	return nil
}

// Rename gives the Customer a new name.
func (c *Customer) Rename(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return core.Wrap(errors.New("empty name"), "accounts.Customer.Rename")
	}
	c.Name = name
	c.Revision++
	return nil
}

// AddTag adds a tag once.
func (c *Customer) AddTag(tag string) error {
	for _, t := range c.Tags {
		if t == tag {
			return core.Wrap(fmt.Errorf("tag %q already set", tag), "accounts.Customer.AddTag")
		}
	}
	c.Tags = append(c.Tags, tag)
	return nil
}

// Charge adds a to the total.
func (c *Customer) Charge(a core.Amount) error {
	sum, err := c.Total.Add(a)
	if err != nil {
		return core.Wrap(err, "accounts.Customer.Charge")
	}
	c.Total = sum
	return nil
}

// Save stores the Customer under its id.
func (c *Customer) Save(s core.Store) error {
	data, err := json.Marshal(c)
	if err != nil {
		return core.Wrap(err, "accounts.Customer.Save")
	}
	return s.Put("accounts/customer/"+c.ID, data)
}

// LoadCustomer reads a Customer from the store.
func LoadCustomer(s core.Store, id string) (*Customer, error) {
	data, err := s.Get("accounts/customer/" + id)
	if err != nil {
		return nil, core.Wrap(err, "accounts.Customer.Load")
	}
	var x Customer
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	return &x, nil
}

// String describes the Customer in one line.
func (c *Customer) String() string {
	return fmt.Sprintf("customer %s %q (%s, rev %d)", c.ID, c.Name, c.Total, c.Revision)
}
