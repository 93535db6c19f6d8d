package shipping

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"example.com/benchmod/core"
)

// Label is a record kept by the shipping service.
type Label struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Total    core.Amount `json:"total"`
	Tags     []string    `json:"tags,omitempty"`
	Revision int         `json:"revision"`
}

// NewLabel returns a Label with the given id and name.
func NewLabel(id, name string) (*Label, error) {
	if strings.TrimSpace(id) == "" {
		return nil, core.Wrap(errors.New("empty id"), "shipping.Label.New")
	}
	return &Label{ID: id, Name: strings.TrimSpace(name)}, nil
}

// Validate reports whether the Label is complete.
func (l *Label) Validate() error {
	if l.Name == "" {
		return core.Wrap(fmt.Errorf("%s has no name", l.ID), "shipping.Label.Validate")
	}
	if l.Total < 0 {
		return core.Wrap(fmt.Errorf("%s has a negative total %s", l.ID, l.Total), "shipping.Label.Validate")
	}
	return nil
}

// Rename gives the Label a new name.
func (l *Label) Rename(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return core.Wrap(errors.New("empty name"), "shipping.Label.Rename")
	}
	l.Name = name
	l.Revision++
	return nil
}

// AddTag adds a tag once.
func (l *Label) AddTag(tag string) error {
	for _, t := range l.Tags {
		if t == tag {
			return core.Wrap(fmt.Errorf("tag %q already set", tag), "shipping.Label.AddTag")
		}
	}
	l.Tags = append(l.Tags, tag)
	return nil
}

// Charge adds a to the total.
func (l *Label) Charge(a core.Amount) error {
	sum, err := l.Total.Add(a)
	if err != nil {
		return core.Wrap(err, "shipping.Label.Charge")
	}
	l.Total = sum
	return nil
}

// Save stores the Label under its id.
func (l *Label) Save(s core.Store) error {
	data, err := json.Marshal(l)
	if err != nil {
		return core.Wrap(err, "shipping.Label.Save")
	}
	return s.Put("shipping/label/"+l.ID, data)
}

// LoadLabel reads a Label from the store.
func LoadLabel(s core.Store, id string) (*Label, error) {
	data, err := s.Get("shipping/label/" + id)
	if err != nil {
		return nil, core.Wrap(err, "shipping.Label.Load")
	}
	var x Label
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	return &x, nil
}

// String describes the Label in one line.
func (l *Label) String() string {
	return fmt.Sprintf("label %s %q (%s, rev %d)", l.ID, l.Name, l.Total, l.Revision)
}
