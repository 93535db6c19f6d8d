package bridge

import (
	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
)

// The answer shapes of packages render and place that bridge's clients name.

// Places are the places of a list by file (see render.Places); tools'
// outputs use them, and clients of this package read them.
type Places = render.Places

// Counts are numbers by file or package (see render.Counts).
type Counts = render.Counts

// Loc is a place in the code as tools report it (see place.Loc).
type Loc = iplace.Loc

// Notes say what an answer's counts and flags mean, in the words its text
// says them: each output's notes member, omitted when there are none.
type Notes = render.Notes
