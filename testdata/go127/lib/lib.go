// Package lib declares generic methods and a struct whose fields are
// promoted from an embedded one (Go 1.27).
package lib

// Base is what every item has.
type Base struct {
	ID   int
	Name string
}

// Label names the base.
func (b Base) Label() string { return b.Name }

// Item is a priced thing; its ID and Name are promoted from Base.
type Item struct {
	Base
	Price int
}

// NewItem makes an item, setting the promoted field in the literal.
func NewItem(id int) Item {
	return Item{ID: id}
}

// Labeler is implemented by Base and, through it, by Item.
type Labeler interface {
	Label() string
}

// Conv converts dynamic values.
type Conv struct{}

// As returns v as a T, and whether it was one.
func (Conv) As[T any](v any) (T, bool) {
	t, ok := v.(T)
	return t, ok
}

// Box holds one value.
type Box[T any] struct{ V T }

// Map applies f to the value in the box.
func (b Box[T]) Map[U any](f func(T) U) Box[U] {
	return Box[U]{V: f(b.V)}
}
