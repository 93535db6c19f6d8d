package shipping

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"example.com/benchmod/core"
)

// Manifest is a record kept by the shipping service.
type Manifest struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Total    core.Amount `json:"total"`
	Tags     []string    `json:"tags,omitempty"`
	Revision int         `json:"revision"`
}

// NewManifest returns a Manifest with the given id and name.
func NewManifest(id, name string) (*Manifest, error) {
	if strings.TrimSpace(id) == "" {
		return nil, core.Wrap(errors.New("empty id"), "shipping.Manifest.New")
	}
	return &Manifest{ID: id, Name: strings.TrimSpace(name)}, nil
}

// Validate reports whether the Manifest is complete.
func (m *Manifest) Validate() error {
	if m.Name == "" {
		return core.Wrap(fmt.Errorf("%s has no name", m.ID), "shipping.Manifest.Validate")
	}
	if m.Total < 0 {
		return core.Wrap(fmt.Errorf("%s has a negative total %s", m.ID, m.Total), "shipping.Manifest.Validate")
	}
	return nil
}

// Rename gives the Manifest a new name.
func (m *Manifest) Rename(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return core.Wrap(errors.New("empty name"), "shipping.Manifest.Rename")
	}
	m.Name = name
	m.Revision++
	return nil
}

// AddTag adds a tag once.
func (m *Manifest) AddTag(tag string) error {
	for _, t := range m.Tags {
		if t == tag {
			return core.Wrap(fmt.Errorf("tag %q already set", tag), "shipping.Manifest.AddTag")
		}
	}
	m.Tags = append(m.Tags, tag)
	return nil
}

// Charge adds a to the total.
func (m *Manifest) Charge(a core.Amount) error {
	sum, err := m.Total.Add(a)
	if err != nil {
		return core.Wrap(err, "shipping.Manifest.Charge")
	}
	m.Total = sum
	return nil
}

// Save stores the Manifest under its id.
func (m *Manifest) Save(s core.Store) error {
	data, err := json.Marshal(m)
	if err != nil {
		return core.Wrap(err, "shipping.Manifest.Save")
	}
	return s.Put("shipping/manifest/"+m.ID, data)
}

// LoadManifest reads a Manifest from the store.
func LoadManifest(s core.Store, id string) (*Manifest, error) {
	data, err := s.Get("shipping/manifest/" + id)
	if err != nil {
		return nil, core.Wrap(err, "shipping.Manifest.Load")
	}
	var x Manifest
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	return &x, nil
}

// String describes the Manifest in one line.
func (m *Manifest) String() string {
	return fmt.Sprintf("manifest %s %q (%s, rev %d)", m.ID, m.Name, m.Total, m.Revision)
}
