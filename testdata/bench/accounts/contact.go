package accounts

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"example.com/benchmod/core"
)

// Contact is a record kept by the accounts service.
type Contact struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Total    core.Amount `json:"total"`
	Tags     []string    `json:"tags,omitempty"`
	Revision int         `json:"revision"`
}

// NewContact returns a Contact with the given id and name.
func NewContact(id, name string) (*Contact, error) {
	if strings.TrimSpace(id) == "" {
		return nil, core.Wrap(errors.New("empty id"), "accounts.Contact.New")
	}
	return &Contact{ID: id, Name: strings.TrimSpace(name)}, nil
}

// Validate reports whether the Contact is complete.
func (c *Contact) Validate() error {
	if c.Name == "" {
		return core.Wrap(fmt.Errorf("%s has no name", c.ID), "accounts.Contact.Validate")
	}
	if c.Total < 0 {
		return core.Wrap(fmt.Errorf("%s has a negative total %s", c.ID, c.Total), "accounts.Contact.Validate")
	}
	return nil
}

// Rename gives the Contact a new name.
func (c *Contact) Rename(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return core.Wrap(errors.New("empty name"), "accounts.Contact.Rename")
	}
	c.Name = name
	c.Revision++
	return nil
}

// AddTag adds a tag once.
func (c *Contact) AddTag(tag string) error {
	for _, t := range c.Tags {
		if t == tag {
			return core.Wrap(fmt.Errorf("tag %q already set", tag), "accounts.Contact.AddTag")
		}
	}
	c.Tags = append(c.Tags, tag)
	return nil
}

// Charge adds a to the total.
func (c *Contact) Charge(a core.Amount) error {
	sum, err := c.Total.Add(a)
	if err != nil {
		return core.Wrap(err, "accounts.Contact.Charge")
	}
	c.Total = sum
	return nil
}

// Save stores the Contact under its id.
func (c *Contact) Save(s core.Store) error {
	data, err := json.Marshal(c)
	if err != nil {
		return core.Wrap(err, "accounts.Contact.Save")
	}
	return s.Put("accounts/contact/"+c.ID, data)
}

// LoadContact reads a Contact from the store.
func LoadContact(s core.Store, id string) (*Contact, error) {
	data, err := s.Get("accounts/contact/" + id)
	if err != nil {
		return nil, core.Wrap(err, "accounts.Contact.Load")
	}
	var x Contact
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	return &x, nil
}

// String describes the Contact in one line.
func (c *Contact) String() string {
	return fmt.Sprintf("contact %s %q (%s, rev %d)", c.ID, c.Name, c.Total, c.Revision)
}
