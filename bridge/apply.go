package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/edit"
)

// Write is the input of the tools that propose edits that says whether to
// write them.
type Write struct {
	Apply bool `json:"apply,omitempty" jsonschema:"write them (needs --allow-write)"`
}

// errWritesDisabled answers apply: true when goplsmcp may not write.
var errWritesDisabled = errors.New("apply: true needs goplsmcp started with --allow-write, and writes are disabled here; call without apply to get the edits and the diff, and apply them yourself")

// checkApply refuses apply: true when writes are not allowed, before the
// call does any work.
func (b *Bridge) checkApply(w Write) error {
	if w.Apply && !b.allowWrite {
		return errWritesDisabled
	}
	return nil
}

// writeNote ends the description of a tool that proposes edits.
func (b *Bridge) writeNote() string {
	if b.allowWrite {
		return " apply: true writes them, atomically, unless a file changed."
	}
	return " Nothing is written."
}

// apply writes the edit set to disk through the one write path (package
// edit): all or nothing, each file re-checked under its lock right before
// it is replaced. gopls is told about the files written.
func (b *Bridge) apply(es *edit.Set) error {
	return es.Write(&edit.Writer{Gate: b.reads, BeforeWrite: b.beforeWrite}, b.client.Written)
}

// applyIf writes es when the call said apply: true, and then marks ch,
// its rendering, applied.
func (b *Bridge) applyIf(w Write, es *edit.Set, ch *Changes) error {
	if !w.Apply || ch.Edits == 0 {
		return nil
	}
	if err := b.checkApply(w); err != nil {
		return err
	}
	// The answer is decided before anything is written: once written,
	// the call must say so, never fail for the size of its answer.
	ch.fit(b.limits.withDefaults().ResultBytes)
	if err := b.apply(es); err != nil {
		return err
	}
	*ch.Applied = true
	return nil
}

// fit replaces a diff too large for an answer of limit bytes by a bounded
// summary: the files changed, as many as fit, and where to see the rest.
// The diff goes in the answer twice (text and structured content), each
// JSON-escaped; a quarter of the limit keeps the whole well inside it.
func (c *Changes) fit(limit int) {
	budget := limit / 4
	if jsonLen(c.Diff) <= budget {
		return
	}
	var files []string
	for _, line := range strings.Split(c.Diff, "\n") {
		if name, ok := strings.CutPrefix(line, "+++ b/"); ok {
			files = append(files, name)
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "(the diff, %d bytes, is too large for the answer; run git diff to see it) files changed:\n", len(c.Diff))
	for i, f := range files {
		if sb.Len()+len(f)+64 > budget/2 {
			fmt.Fprintf(&sb, "... and %d more\n", len(files)-i)
			break
		}
		sb.WriteString(f + "\n")
	}
	c.Diff = sb.String()
}

// jsonLen is the length of s as a JSON string.
func jsonLen(s string) int {
	data, _ := json.Marshal(s)
	return len(data)
}

// propose turns an edit set into the changes an edit tool answers with,
// written first when the call asked to apply them (see applyIf).
func (b *Bridge) propose(w Write, es *edit.Set) (Changes, error) {
	ch, err := b.changes(es)
	if err != nil {
		return Changes{}, err
	}
	if err := b.applyIf(w, es, &ch); err != nil {
		return Changes{}, err
	}
	return ch, nil
}
