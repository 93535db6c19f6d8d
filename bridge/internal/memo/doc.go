// Package memo owns what the tools keep between calls so that they need
// not ask or compute again: answers gopls gave at one modification
// generation (Gen), and the lines (Lines) and syntax trees (Trees) of the
// very texts they were made from. Every memo is bounded and safe for
// concurrent use; what it hands out is shared and must not be modified.
//
// Imports: nothing of this module; only the standard library.
package memo
