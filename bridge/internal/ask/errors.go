package ask

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/lspclient"
)

// MessageChars bounds the part of a gopls or parser error shown in a
// tool error: either may quote the client's text.
const MessageChars = 300

// Error turns an error of a gopls request into the tool error the model
// reads: one line, bounded, saying what to do next. An error that is not
// the client's is returned as it is.
func Error(err error) error {
	var re *lspclient.ResponseError
	var lt *lspclient.LoadTimeoutError
	var stuck *lspclient.StuckError
	var child *lspclient.ChildError
	switch {
	case errors.As(err, &child):
		// What gopls ran for the call was killed: the sentence names the
		// package and the cause (a path or an import path, bounded).
		return fmt.Errorf("%s; fix that, then send the call again", render.ClipN(child.Sentence, 2*MessageChars))
	case errors.As(err, &re):
		// gopls's messages may span lines; a tool error is one line.
		// They may quote what the client sent (a name, a line of its
		// text), so they are bounded like any echo.
		msg := strings.Join(strings.Fields(strings.ReplaceAll(re.Message, "\n", "; ")), " ")
		return fmt.Errorf("gopls: %s", render.ClipN(msg, MessageChars))
	case errors.As(err, &lt):
		// The load goes on: a later call may find it done.
		return fmt.Errorf("gopls did not finish loading the workspace within %s; retry later, or restart goplsmcp with a longer --load-timeout or a narrower --root", lt.Bound)
	case errors.As(err, &stuck):
		return stuckError(stuck)
	case errors.Is(err, lspclient.ErrTimeout):
		return fmt.Errorf("gopls did not answer in time; retry, or narrow the call")
	case errors.Is(err, lspclient.ErrExited):
		// The client has sent the request again, once, to the new gopls;
		// this one died too.
		return ErrRestarted
	}
	return err
}

// stuckError words a request gopls stopped working on. A slow gopls never
// gets here (it shows work: CPU time, messages); one that does nothing for
// a whole window is blocked, and the file the call was about is the
// likeliest reason.
func stuckError(e *lspclient.StuckError) error {
	on := ""
	if e.File != "" {
		on = " on " + render.ClipN(filepath.Base(e.File), 80)
	}
	if e.Restarted {
		return fmt.Errorf("gopls stopped answering while working%s (no CPU time and no message for %s) and was restarted; send the call again", on, e.Idle)
	}
	return fmt.Errorf("gopls stopped working on this call%s (no CPU time and no message for %s, though it still answers): something it reads blocks it, such as a link to a pipe or a device; remove that, or ask about other files", on, e.Idle)
}

// ErrRestarted is the one error a call gets because gopls was restarted
// under it (docs/troubleshooting.md, "When gopls misbehaves").
var ErrRestarted = errors.New("gopls was restarted while answering; send the call again")
