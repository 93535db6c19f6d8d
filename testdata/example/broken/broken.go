// Package broken holds a deliberate type error, to show diagnostics.
package broken

import "example.com/shapes/shapes"

// Unit is a 1×1 square.
func Unit() shapes.Rect {
	return shapes.Rect{W: 1, H: "1"}
}
