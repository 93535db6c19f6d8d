package inventory

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"example.com/benchmod/core"
)

// Stock is a record kept by the inventory service.
type Stock struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Total    core.Amount `json:"total"`
	Tags     []string    `json:"tags,omitempty"`
	Revision int         `json:"revision"`
	SKU      core.SKU    `json:"sku,omitempty"`
}

// NewStock returns a Stock with the given id and name.
func NewStock(id, name string) (*Stock, error) {
	if strings.TrimSpace(id) == "" {
		return nil, core.Wrap(errors.New("empty id"), "inventory.Stock.New")
	}
	return &Stock{ID: id, Name: strings.TrimSpace(name)}, nil
}

// Validate reports whether the Stock is complete.
func (st *Stock) Validate() error {
	if st.Name == "" {
		return core.Wrap(fmt.Errorf("%s has no name", st.ID), "inventory.Stock.Validate")
	}
	if st.Total < 0 {
		return core.Wrap(fmt.Errorf("%s has a negative total %s", st.ID, st.Total), "inventory.Stock.Validate")
	}
	return nil
}

// Rename gives the Stock a new name.
func (st *Stock) Rename(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return core.Wrap(errors.New("empty name"), "inventory.Stock.Rename")
	}
	st.Name = name
	st.Revision++
	return nil
}

// SetSKU parses and records the stock keeping unit.
func (st *Stock) SetSKU(s string) error {
	sku, err := core.ParseSKU(s)
	if err != nil {
		return core.Wrap(err, "inventory.Stock.SetSKU")
	}
	st.SKU = sku
	return nil
}

// Charge adds a to the total.
func (st *Stock) Charge(a core.Amount) error {
	sum, err := st.Total.Add(a)
	if err != nil {
		return core.Wrap(err, "inventory.Stock.Charge")
	}
	st.Total = sum
	return nil
}

// Save stores the Stock under its id.
func (st *Stock) Save(s core.Store) error {
	data, err := json.Marshal(st)
	if err != nil {
		return core.Wrap(err, "inventory.Stock.Save")
	}
	return s.Put("inventory/stock/"+st.ID, data)
}

// LoadStock reads a Stock from the store.
func LoadStock(s core.Store, id string) (*Stock, error) {
	data, err := s.Get("inventory/stock/" + id)
	if err != nil {
		return nil, core.Wrap(err, "inventory.Stock.Load")
	}
	var x Stock
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	if x.SKU != "" {
		if _, err := core.ParseSKU(string(x.SKU)); err != nil {
			return nil, err
		}
	}
	return &x, nil
}

// String describes the Stock in one line.
func (st *Stock) String() string {
	return fmt.Sprintf("stock %s %q (%s, rev %d)", st.ID, st.Name, st.Total, st.Revision)
}
