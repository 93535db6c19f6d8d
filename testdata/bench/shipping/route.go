package shipping

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"example.com/benchmod/core"
)

// Route is a record kept by the shipping service.
type Route struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Total    core.Amount `json:"total"`
	Tags     []string    `json:"tags,omitempty"`
	Revision int         `json:"revision"`
}

// NewRoute returns a Route with the given id and name.
func NewRoute(id, name string) (*Route, error) {
	if strings.TrimSpace(id) == "" {
		return nil, core.Wrap(errors.New("empty id"), "shipping.Route.New")
	}
	return &Route{ID: id, Name: strings.TrimSpace(name)}, nil
}

// Validate reports whether the Route is complete.
func (r *Route) Validate() error {
	if r.Name == "" {
		return core.Wrap(fmt.Errorf("%s has no name", r.ID), "shipping.Route.Validate")
	}
	if r.Total < 0 {
		return core.Wrap(fmt.Errorf("%s has a negative total %s", r.ID, r.Total), "shipping.Route.Validate")
	}
	return nil
}

// Rename gives the Route a new name.
func (r *Route) Rename(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return core.Wrap(errors.New("empty name"), "shipping.Route.Rename")
	}
	r.Name = name
	r.Revision++
	return nil
}

// AddTag adds a tag once.
func (r *Route) AddTag(tag string) error {
	for _, t := range r.Tags {
		if t == tag {
			return core.Wrap(fmt.Errorf("tag %q already set", tag), "shipping.Route.AddTag")
		}
	}
	r.Tags = append(r.Tags, tag)
	return nil
}

// Charge adds a to the total.
func (r *Route) Charge(a core.Amount) error {
	sum, err := r.Total.Add(a)
	if err != nil {
		return core.Wrap(err, "shipping.Route.Charge")
	}
	r.Total = sum
	return nil
}

// Save stores the Route under its id.
func (r *Route) Save(s core.Store) error {
	data, err := json.Marshal(r)
	if err != nil {
		return core.Wrap(err, "shipping.Route.Save")
	}
	return s.Put("shipping/route/"+r.ID, data)
}

// LoadRoute reads a Route from the store.
func LoadRoute(s core.Store, id string) (*Route, error) {
	data, err := s.Get("shipping/route/" + id)
	if err != nil {
		return nil, core.Wrap(err, "shipping.Route.Load")
	}
	var x Route
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	return &x, nil
}

// String describes the Route in one line.
func (r *Route) String() string {
	return fmt.Sprintf("route %s %q (%s, rev %d)", r.ID, r.Name, r.Total, r.Revision)
}
