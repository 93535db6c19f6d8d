package core

import (
	"errors"
	"fmt"
	"math"
)

// Amount is a sum of money in cents.
type Amount int64

// ErrOverflow is returned when a sum does not fit in an Amount.
var ErrOverflow = errors.New("amount overflows")

// NewAmount returns units and cents as an Amount.
func NewAmount(units, cents int64) Amount { return Amount(units*100 + cents) }

// Add returns a+b, or ErrOverflow.
func (a Amount) Add(b Amount) (Amount, error) {
	if (b > 0 && a > math.MaxInt64-b) || (b < 0 && a < math.MinInt64-b) {
		return 0, ErrOverflow
	}
	return a + b, nil
}

// Scale returns a multiplied by n, or ErrOverflow.
func (a Amount) Scale(n int64) (Amount, error) {
	if n != 0 && (a*Amount(n))/Amount(n) != a {
		return 0, ErrOverflow
	}
	return a * Amount(n), nil
}

func (a Amount) String() string {
	sign := ""
	if a < 0 {
		sign, a = "-", -a
	}
	return fmt.Sprintf("%s%d.%02d", sign, a/100, a%100)
}
