package bridge

import (
	"github.com/goplsmcp/goplsmcp/bridge/internal/action"
	"github.com/goplsmcp/goplsmcp/bridge/internal/edit"
)

// The edit and diagnostics tools' inputs and outputs name these types of
// packages edit and action, under the names their schemas and clients
// know them by.

// Edit replaces the text of a range of a file with new text.
type Edit = edit.Edit

// Changes are changes to files, as a unified diff (see edit.Changes).
type Changes = edit.Changes

// Write is the input of the tools that propose edits that says whether to
// write them.
type Write = edit.Write

// Fix is a quick fix for a diagnostic: a title and its edits.
type Fix = action.Fix
