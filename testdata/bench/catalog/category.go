package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"example.com/benchmod/core"
)

// Category is a record kept by the catalog service.
type Category struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Total    core.Amount `json:"total"`
	Tags     []string    `json:"tags,omitempty"`
	Revision int         `json:"revision"`
}

// NewCategory returns a Category with the given id and name.
func NewCategory(id, name string) (*Category, error) {
	if strings.TrimSpace(id) == "" {
		return nil, core.Wrap(errors.New("empty id"), "catalog.Category.New")
	}
	return &Category{ID: id, Name: strings.TrimSpace(name)}, nil
}

// Validate reports whether the Category is complete.
func (c *Category) Validate() error {
	if c.Name == "" {
		return core.Wrap(fmt.Errorf("%s has no name", c.ID), "catalog.Category.Validate")
	}
	if c.Total < 0 {
		return core.Wrap(fmt.Errorf("%s has a negative total %s", c.ID, c.Total), "catalog.Category.Validate")
	}
	return nil
}

// Rename gives the Category a new name.
func (c *Category) Rename(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return core.Wrap(errors.New("empty name"), "catalog.Category.Rename")
	}
	c.Name = name
	c.Revision++
	return nil
}

// AddTag adds a tag once.
func (c *Category) AddTag(tag string) error {
	for _, t := range c.Tags {
		if t == tag {
			return core.Wrap(fmt.Errorf("tag %q already set", tag), "catalog.Category.AddTag")
		}
	}
	c.Tags = append(c.Tags, tag)
	return nil
}

// Charge adds a to the total.
func (c *Category) Charge(a core.Amount) error {
	sum, err := c.Total.Add(a)
	if err != nil {
		return core.Wrap(err, "catalog.Category.Charge")
	}
	c.Total = sum
	return nil
}

// Save stores the Category under its id.
func (c *Category) Save(s core.Store) error {
	data, err := json.Marshal(c)
	if err != nil {
		return core.Wrap(err, "catalog.Category.Save")
	}
	return s.Put("catalog/category/"+c.ID, data)
}

// LoadCategory reads a Category from the store.
func LoadCategory(s core.Store, id string) (*Category, error) {
	data, err := s.Get("catalog/category/" + id)
	if err != nil {
		return nil, core.Wrap(err, "catalog.Category.Load")
	}
	var x Category
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	return &x, nil
}

// String describes the Category in one line.
func (c *Category) String() string {
	return fmt.Sprintf("category %s %q (%s, rev %d)", c.ID, c.Name, c.Total, c.Revision)
}
