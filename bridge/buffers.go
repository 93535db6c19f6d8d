package bridge

import "github.com/goplsmcp/goplsmcp/bridge/internal/buffer"

// Doc names the code a tool works on (see buffer.Doc). It keeps its name
// here, as the tools' input types embed it.
type Doc = buffer.Doc
