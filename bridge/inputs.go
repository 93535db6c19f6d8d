package bridge

import (
	"errors"

	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	"github.com/goplsmcp/goplsmcp/bridge/internal/target"
)

// Doc names the code a tool works on (see buffer.Doc). It keeps its name
// here, as the tools' input types embed it.
type Doc = buffer.Doc

// At is how a tool call names a place in the code (see target.At). It
// keeps its name here, as the tools' input types embed it.
type At = target.At

// limitOr checks a list's limit argument and applies the tool's default
// to zero.
func limitOr(limit, def int) (int, error) {
	if limit < 0 {
		return 0, errors.New("limit must be positive; leave it out for the default")
	}
	if limit == 0 {
		return def, nil
	}
	return limit, nil
}
