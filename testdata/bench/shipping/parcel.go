package shipping

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"example.com/benchmod/core"
)

// Parcel is a record kept by the shipping service.
type Parcel struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Total    core.Amount `json:"total"`
	Tags     []string    `json:"tags,omitempty"`
	Revision int         `json:"revision"`
}

// NewParcel returns a Parcel with the given id and name.
func NewParcel(id, name string) (*Parcel, error) {
	if strings.TrimSpace(id) == "" {
		return nil, core.Wrap(errors.New("empty id"), "shipping.Parcel.New")
	}
	return &Parcel{ID: id, Name: strings.TrimSpace(name)}, nil
}

// Validate reports whether the Parcel is complete.
func (p *Parcel) Validate() error {
	if p.Name == "" {
		return core.Wrap(fmt.Errorf("%s has no name", p.ID), "shipping.Parcel.Validate")
	}
	if p.Total < 0 {
		return core.Wrap(fmt.Errorf("%s has a negative total %s", p.ID, p.Total), "shipping.Parcel.Validate")
	}
	return nil
}

// Rename gives the Parcel a new name.
func (p *Parcel) Rename(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return core.Wrap(errors.New("empty name"), "shipping.Parcel.Rename")
	}
	p.Name = name
	p.Revision++
	return nil
}

// AddTag adds a tag once.
func (p *Parcel) AddTag(tag string) error {
	for _, t := range p.Tags {
		if t == tag {
			return core.Wrap(fmt.Errorf("tag %q already set", tag), "shipping.Parcel.AddTag")
		}
	}
	p.Tags = append(p.Tags, tag)
	return nil
}

// Charge adds a to the total.
func (p *Parcel) Charge(a core.Amount) error {
	sum, err := p.Total.Add(a)
	if err != nil {
		return core.Wrap(err, "shipping.Parcel.Charge")
	}
	p.Total = sum
	return nil
}

// Save stores the Parcel under its id.
func (p *Parcel) Save(s core.Store) error {
	data, err := json.Marshal(p)
	if err != nil {
		return core.Wrap(err, "shipping.Parcel.Save")
	}
	return s.Put("shipping/parcel/"+p.ID, data)
}

// LoadParcel reads a Parcel from the store.
func LoadParcel(s core.Store, id string) (*Parcel, error) {
	data, err := s.Get("shipping/parcel/" + id)
	if err != nil {
		return nil, core.Wrap(err, "shipping.Parcel.Load")
	}
	var x Parcel
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	return &x, nil
}

// String describes the Parcel in one line.
func (p *Parcel) String() string {
	return fmt.Sprintf("parcel %s %q (%s, rev %d)", p.ID, p.Name, p.Total, p.Revision)
}
