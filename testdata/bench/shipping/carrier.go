package shipping

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"example.com/benchmod/core"
)

// Carrier is a record kept by the shipping service.
type Carrier struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Total    core.Amount `json:"total"`
	Tags     []string    `json:"tags,omitempty"`
	Revision int         `json:"revision"`
}

// NewCarrier returns a Carrier with the given id and name.
func NewCarrier(id, name string) (*Carrier, error) {
	if strings.TrimSpace(id) == "" {
		return nil, core.Wrap(errors.New("empty id"), "shipping.Carrier.New")
	}
	return &Carrier{ID: id, Name: strings.TrimSpace(name)}, nil
}

// Validate reports whether the Carrier is complete.
func (c *Carrier) Validate() error {
	if c.Name == "" {
		return core.Wrap(fmt.Errorf("%s has no name", c.ID), "shipping.Carrier.Validate")
	}
	if c.Total < 0 {
		return core.Wrap(fmt.Errorf("%s has a negative total %s", c.ID, c.Total), "shipping.Carrier.Validate")
	}
	return nil
}

// Rename gives the Carrier a new name.
func (c *Carrier) Rename(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return core.Wrap(errors.New("empty name"), "shipping.Carrier.Rename")
	}
	c.Name = name
	c.Revision++
	return nil
}

// AddTag adds a tag once.
func (c *Carrier) AddTag(tag string) error {
	for _, t := range c.Tags {
		if t == tag {
			return core.Wrap(fmt.Errorf("tag %q already set", tag), "shipping.Carrier.AddTag")
		}
	}
	c.Tags = append(c.Tags, tag)
	return nil
}

// Charge adds a to the total.
func (c *Carrier) Charge(a core.Amount) error {
	sum, err := c.Total.Add(a)
	if err != nil {
		return core.Wrap(err, "shipping.Carrier.Charge")
	}
	c.Total = sum
	return nil
}

// Save stores the Carrier under its id.
func (c *Carrier) Save(s core.Store) error {
	data, err := json.Marshal(c)
	if err != nil {
		return core.Wrap(err, "shipping.Carrier.Save")
	}
	return s.Put("shipping/carrier/"+c.ID, data)
}

// LoadCarrier reads a Carrier from the store.
func LoadCarrier(s core.Store, id string) (*Carrier, error) {
	data, err := s.Get("shipping/carrier/" + id)
	if err != nil {
		return nil, core.Wrap(err, "shipping.Carrier.Load")
	}
	var x Carrier
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	return &x, nil
}

// String describes the Carrier in one line.
func (c *Carrier) String() string {
	return fmt.Sprintf("carrier %s %q (%s, rev %d)", c.ID, c.Name, c.Total, c.Revision)
}
