package accounts

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"example.com/benchmod/core"
)

// Role is a record kept by the accounts service.
type Role struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Total    core.Amount `json:"total"`
	Tags     []string    `json:"tags,omitempty"`
	Revision int         `json:"revision"`
}

// NewRole returns a Role with the given id and name.
func NewRole(id, name string) (*Role, error) {
	if strings.TrimSpace(id) == "" {
		return nil, core.Wrap(errors.New("empty id"), "accounts.Role.New")
	}
	return &Role{ID: id, Name: strings.TrimSpace(name)}, nil
}

// Validate reports whether the Role is complete.
func (r *Role) Validate() error {
	if r.Name == "" {
		return core.Wrap(fmt.Errorf("%s has no name", r.ID), "accounts.Role.Validate")
	}
	if r.Total < 0 {
		return core.Wrap(fmt.Errorf("%s has a negative total %s", r.ID, r.Total), "accounts.Role.Validate")
	}
	return nil
}

// Rename gives the Role a new name.
func (r *Role) Rename(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return core.Wrap(errors.New("empty name"), "accounts.Role.Rename")
	}
	r.Name = name
	r.Revision++
	return nil
}

// AddTag adds a tag once.
func (r *Role) AddTag(tag string) error {
	for _, t := range r.Tags {
		if t == tag {
			return core.Wrap(fmt.Errorf("tag %q already set", tag), "accounts.Role.AddTag")
		}
	}
	r.Tags = append(r.Tags, tag)
	return nil
}

// Charge adds a to the total.
func (r *Role) Charge(a core.Amount) error {
	sum, err := r.Total.Add(a)
	if err != nil {
		return core.Wrap(err, "accounts.Role.Charge")
	}
	r.Total = sum
	return nil
}

// Save stores the Role under its id.
func (r *Role) Save(s core.Store) error {
	data, err := json.Marshal(r)
	if err != nil {
		return core.Wrap(err, "accounts.Role.Save")
	}
	return s.Put("accounts/role/"+r.ID, data)
}

// LoadRole reads a Role from the store.
func LoadRole(s core.Store, id string) (*Role, error) {
	data, err := s.Get("accounts/role/" + id)
	if err != nil {
		return nil, core.Wrap(err, "accounts.Role.Load")
	}
	var x Role
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	return &x, nil
}

// String describes the Role in one line.
func (r *Role) String() string {
	return fmt.Sprintf("role %s %q (%s, rev %d)", r.ID, r.Name, r.Total, r.Revision)
}
