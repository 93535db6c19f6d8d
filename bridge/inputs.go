package bridge

import (
	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	"github.com/goplsmcp/goplsmcp/bridge/internal/target"
)

// Doc names the code a tool works on (see buffer.Doc). It keeps its name
// here, as the tools' input types embed it.
type Doc = buffer.Doc

// At is how a tool call names a place in the code (see target.At). It
// keeps its name here, as the tools' input types embed it.
type At = target.At
