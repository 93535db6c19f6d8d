// Command shapes prints a summary of a few shapes.
package main

import (
	"fmt"

	"example.com/shapes/report"
	"example.com/shapes/shapes"
)

func main() {
	list := []shapes.Shape{shapes.Rect{W: 3, H: 4}, shapes.Circle{R: 1}}
	fmt.Println(report.Summary(list))
	fmt.Println(report.Largest(list).Area())
}
