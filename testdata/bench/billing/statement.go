package billing

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"example.com/benchmod/core"
)

// Statement is a record kept by the billing service.
type Statement struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Total    core.Amount `json:"total"`
	Tags     []string    `json:"tags,omitempty"`
	Revision int         `json:"revision"`
}

// NewStatement returns a Statement with the given id and name.
func NewStatement(id, name string) (*Statement, error) {
	if strings.TrimSpace(id) == "" {
		return nil, core.Wrap(errors.New("empty id"), "billing.Statement.New")
	}
	return &Statement{ID: id, Name: strings.TrimSpace(name)}, nil
}

// Validate reports whether the Statement is complete.
func (st *Statement) Validate() error {
	if st.Name == "" {
		return core.Wrap(fmt.Errorf("%s has no name", st.ID), "billing.Statement.Validate")
	}
	if st.Total < 0 {
		return core.Wrap(fmt.Errorf("%s has a negative total %s", st.ID, st.Total), "billing.Statement.Validate")
	}
	return nil
}

// Rename gives the Statement a new name.
func (st *Statement) Rename(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return core.Wrap(errors.New("empty name"), "billing.Statement.Rename")
	}
	st.Name = name
	st.Revision++
	return nil
}

// AddTag adds a tag once.
func (st *Statement) AddTag(tag string) error {
	for _, t := range st.Tags {
		if t == tag {
			return core.Wrap(fmt.Errorf("tag %q already set", tag), "billing.Statement.AddTag")
		}
	}
	st.Tags = append(st.Tags, tag)
	return nil
}

// Charge adds a to the total.
func (st *Statement) Charge(a core.Amount) error {
	sum, err := st.Total.Add(a)
	if err != nil {
		return core.Wrap(err, "billing.Statement.Charge")
	}
	st.Total = sum
	return nil
}

// Save stores the Statement under its id.
func (st *Statement) Save(s core.Store) error {
	data, err := json.Marshal(st)
	if err != nil {
		return core.Wrap(err, "billing.Statement.Save")
	}
	return s.Put("billing/statement/"+st.ID, data)
}

// LoadStatement reads a Statement from the store.
func LoadStatement(s core.Store, id string) (*Statement, error) {
	data, err := s.Get("billing/statement/" + id)
	if err != nil {
		return nil, core.Wrap(err, "billing.Statement.Load")
	}
	var x Statement
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	return &x, nil
}

// String describes the Statement in one line.
func (st *Statement) String() string {
	return fmt.Sprintf("statement %s %q (%s, rev %d)", st.ID, st.Name, st.Total, st.Revision)
}
