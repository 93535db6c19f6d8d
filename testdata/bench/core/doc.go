// Package core holds what every service of the bench fixture shares:
// errors, money amounts, stock keeping units and a key-value store.
package core
