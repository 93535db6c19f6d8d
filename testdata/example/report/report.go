// Package report prints summaries of shapes.
package report

import (
	"fmt"

	"example.com/shapes/shapes"
)

// Summary describes a set of shapes in one line.
func Summary(list []shapes.Shape) string {
	return fmt.Sprintf("%d shapes, total area %.2f", len(list), shapes.TotalArea(list...))
}

// Largest returns the shape with the greatest area.
func Largest(list []shapes.Shape) shapes.Shape {
	var best shapes.Shape
	for _, s := range list {
		if best == nil || s.Area() > best.Area() {
			best = s
		}
	}
	return best
}
