package core

import (
	"fmt"
	"strings"
)

// SKU is a stock keeping unit: three letters, a dash and digits.
type SKU string

// ParseSKU checks s and returns it as a SKU.
func ParseSKU(s string) (SKU, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	prefix, digits, ok := strings.Cut(s, "-")
	if !ok || len(prefix) != 3 || digits == "" {
		return "", fmt.Errorf("sku %q is not of the form ABC-123", s)
	}
	for _, r := range digits {
		if r < '0' || r > '9' {
			return "", fmt.Errorf("sku %q has a non-digit after the dash", s)
		}
	}
	return SKU(s), nil
}

// MustParseSKU is ParseSKU for constants; it panics on a bad SKU.
func MustParseSKU(s string) SKU {
	sku, err := ParseSKU(s)
	if err != nil {
		panic(err)
	}
	return sku
}
