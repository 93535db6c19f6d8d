package buffer

import "context"

// The names gate_test.go knew the gate by when it lived in bridge.

type (
	gate         = Gate
	sessionState = Session
)

func (g *Gate) enter(ctx context.Context, sw Switcher, st *Session, mutates bool) (func(), error) {
	return g.Enter(ctx, sw, st, mutates)
}

func (g *Gate) overlaid(st *Session, uri, text string) { g.Overlaid(st, uri, text) }
func (g *Gate) reverted(st *Session, uri string)       { g.Reverted(st, uri) }
