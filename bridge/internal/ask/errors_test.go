package ask

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/goplsmcp/goplsmcp/lspclient"
)

// TestError checks that each failure of the client reads as one line
// a model can act on.
func TestError(t *testing.T) {
	other := errors.New("other")
	for _, c := range []struct {
		err  error
		want string
	}{
		{&lspclient.ResponseError{Method: "m", Code: 1, Message: "no\n  object  found"}, "gopls: no; object found"},
		{fmt.Errorf("asking: %w", &lspclient.LoadTimeoutError{Bound: time.Minute}), "gopls did not finish loading the workspace within 1m0s; retry later, or restart goplsmcp with a longer --load-timeout or a narrower --root"},
		{fmt.Errorf("asking: %w", lspclient.ErrTimeout), "gopls did not answer in time; retry, or narrow the call"},
		{fmt.Errorf("asking: %w", lspclient.ErrExited), ErrRestarted.Error()},
		{fmt.Errorf("asking: %w", &lspclient.StuckError{Method: "textDocument/hover", File: "/w/p/x.go", Idle: 30 * time.Second, Restarted: true}),
			"gopls stopped answering while working on x.go (no CPU time and no message for 30s) and was restarted; send the call again"},
		{&lspclient.StuckError{Method: "textDocument/references", Idle: 30 * time.Second},
			"gopls stopped working on this call (no CPU time and no message for 30s, though it still answers): something it reads blocks it, such as a link to a pipe or a device; remove that, or ask about other files"},
		{fmt.Errorf("asking: %w", &lspclient.ChildError{Method: "textDocument/hover", Sentence: "gopls's go command ran cgo on package example.com/m/cg for 2m0s, past its bound of 2m0s, and it was killed"}),
			"gopls's go command ran cgo on package example.com/m/cg for 2m0s, past its bound of 2m0s, and it was killed; fix that, then send the call again"},
		{other, "other"},
	} {
		if got := Error(c.err).Error(); got != c.want {
			t.Errorf("Error(%v) = %q, want %q", c.err, got, c.want)
		}
	}
	long := &lspclient.ResponseError{Message: strings.Repeat("x", 2*MessageChars)}
	if got := Error(long).Error(); len(got) > len("gopls: ")+MessageChars+10 {
		t.Errorf("Error of a long message is %d bytes, want it clipped near %d", len(got), MessageChars)
	}
}
