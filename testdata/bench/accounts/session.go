package accounts

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"example.com/benchmod/core"
)

// Session is a record kept by the accounts service.
type Session struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Total    core.Amount `json:"total"`
	Tags     []string    `json:"tags,omitempty"`
	Revision int         `json:"revision"`
}

// NewSession returns a Session with the given id and name.
func NewSession(id, name string) (*Session, error) {
	if strings.TrimSpace(id) == "" {
		return nil, core.Wrap(errors.New("empty id"), "accounts.Session.New")
	}
	return &Session{ID: id, Name: strings.TrimSpace(name)}, nil
}

// Validate reports whether the Session is complete.
func (se *Session) Validate() error {
	if se.Name == "" {
		return core.Wrap(fmt.Errorf("%s has no name", se.ID), "accounts.Session.Validate")
	}
	if se.Total < 0 {
		return core.Wrap(fmt.Errorf("%s has a negative total %s", se.ID, se.Total), "accounts.Session.Validate")
	}
	return nil
}

// Rename gives the Session a new name.
func (se *Session) Rename(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return core.Wrap(errors.New("empty name"), "accounts.Session.Rename")
	}
	se.Name = name
	se.Revision++
	return nil
}

// AddTag adds a tag once.
func (se *Session) AddTag(tag string) error {
	for _, t := range se.Tags {
		if t == tag {
			return core.Wrap(fmt.Errorf("tag %q already set", tag), "accounts.Session.AddTag")
		}
	}
	se.Tags = append(se.Tags, tag)
	return nil
}

// Charge adds a to the total.
func (se *Session) Charge(a core.Amount) error {
	sum, err := se.Total.Add(a)
	if err != nil {
		return core.Wrap(err, "accounts.Session.Charge")
	}
	se.Total = sum
	return nil
}

// Save stores the Session under its id.
func (se *Session) Save(s core.Store) error {
	data, err := json.Marshal(se)
	if err != nil {
		return core.Wrap(err, "accounts.Session.Save")
	}
	return s.Put("accounts/session/"+se.ID, data)
}

// LoadSession reads a Session from the store.
func LoadSession(s core.Store, id string) (*Session, error) {
	data, err := s.Get("accounts/session/" + id)
	if err != nil {
		return nil, core.Wrap(err, "accounts.Session.Load")
	}
	var x Session
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	return &x, nil
}

// String describes the Session in one line.
func (se *Session) String() string {
	return fmt.Sprintf("session %s %q (%s, rev %d)", se.ID, se.Name, se.Total, se.Revision)
}
