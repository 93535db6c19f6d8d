package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"example.com/benchmod/core"
)

// Listing is a record kept by the catalog service.
type Listing struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Total    core.Amount `json:"total"`
	Tags     []string    `json:"tags,omitempty"`
	Revision int         `json:"revision"`
}

// NewListing returns a Listing with the given id and name.
func NewListing(id, name string) (*Listing, error) {
	if strings.TrimSpace(id) == "" {
		return nil, core.Wrap(errors.New("empty id"), "catalog.Listing.New")
	}
	return &Listing{ID: id, Name: strings.TrimSpace(name)}, nil
}

// Validate reports whether the Listing is complete.
func (l *Listing) Validate() error {
	if l.Name == "" {
		return core.Wrap(fmt.Errorf("%s has no name", l.ID), "catalog.Listing.Validate")
	}
	if l.Total < 0 {
		return core.Wrap(fmt.Errorf("%s has a negative total %s", l.ID, l.Total), "catalog.Listing.Validate")
	}
	return nil
}

// Rename gives the Listing a new name.
func (l *Listing) Rename(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return core.Wrap(errors.New("empty name"), "catalog.Listing.Rename")
	}
	l.Name = name
	l.Revision++
	return nil
}

// AddTag adds a tag once.
func (l *Listing) AddTag(tag string) error {
	for _, t := range l.Tags {
		if t == tag {
			return core.Wrap(fmt.Errorf("tag %q already set", tag), "catalog.Listing.AddTag")
		}
	}
	l.Tags = append(l.Tags, tag)
	return nil
}

// Charge adds a to the total.
func (l *Listing) Charge(a core.Amount) error {
	sum, err := l.Total.Add(a)
	if err != nil {
		return core.Wrap(err, "catalog.Listing.Charge")
	}
	l.Total = sum
	return nil
}

// Save stores the Listing under its id.
func (l *Listing) Save(s core.Store) error {
	data, err := json.Marshal(l)
	if err != nil {
		return core.Wrap(err, "catalog.Listing.Save")
	}
	return s.Put("catalog/listing/"+l.ID, data)
}

// LoadListing reads a Listing from the store.
func LoadListing(s core.Store, id string) (*Listing, error) {
	data, err := s.Get("catalog/listing/" + id)
	if err != nil {
		return nil, core.Wrap(err, "catalog.Listing.Load")
	}
	var x Listing
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	return &x, nil
}

// String describes the Listing in one line.
func (l *Listing) String() string {
	return fmt.Sprintf("listing %s %q (%s, rev %d)", l.ID, l.Name, l.Total, l.Revision)
}
