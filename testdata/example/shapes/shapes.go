// Package shapes measures plane figures.
package shapes

import "math"

// Shape is a closed plane figure.
type Shape interface {
	// Area returns the area enclosed by the shape.
	Area() float64
	// Perimeter returns the length of the shape's boundary.
	Perimeter() float64
}

// Rect is an axis-aligned rectangle.
type Rect struct {
	W, H float64
}

// Area returns the rectangle's area.
func (r Rect) Area() float64 { return r.W * r.H }

// Perimeter returns the rectangle's perimeter.
func (r Rect) Perimeter() float64 { return 2 * (r.W + r.H) }

// Circle is a circle of radius R.
type Circle struct {
	R float64
}

// Area returns the circle's area.
func (c Circle) Area() float64 { return math.Pi * c.R * c.R }

// Perimeter returns the circle's circumference.
func (c Circle) Perimeter() float64 { return 2 * math.Pi * c.R }

// TotalArea sums the areas of shapes.
func TotalArea(shapes ...Shape) float64 {
	var sum float64
	for _, s := range shapes {
		sum += s.Area()
	}
	return sum
}
