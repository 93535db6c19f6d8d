package buffer

import (
	"context"
	"fmt"
	"time"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	"github.com/goplsmcp/goplsmcp/lspclient"
)

// Enter waits until a call of st may run (see Gate.Enter), switching what
// gopls holds if it must; mutates says the call may add an overlay. The
// call must run leave when it ends.
func (s *Set) Enter(ctx context.Context, st *Session, mutates bool) (leave func(), err error) {
	return s.c.Gate.Enter(ctx, switcher{s}, st, mutates)
}

// TryEnter is Enter for a call of st that must not wait (see
// Gate.TryEnter): ok is false if it would.
func (s *Set) TryEnter(st *Session, mutates bool) (leave func(), ok bool) {
	return s.c.Gate.TryEnter(st, mutates)
}

// End forgets a session that has ended: its snippets are closed, and its
// overlays, if gopls holds them, reverted to the files on disk. ctx bounds
// the work; what fails is logged.
func (s *Set) End(ctx context.Context, st *Session) {
	for _, uri := range st.Snippets.All() {
		if _, err := s.c.Client.CloseDocument(ctx, uri); err != nil {
			s.c.Log.Debug("closing an ended session's snippet", "error", err)
		}
	}
	if err := s.c.Gate.Forget(ctx, switcher{s}, st); err != nil {
		s.c.Log.Warn("reverting an ended session's unsaved files", "error", err)
	}
}

// Holds reports whether st has given gopls anything to keep: an overlay
// or a snippet.
func (s *Set) Holds(st *Session) bool {
	return s.c.Gate.HasOverlays(st) || len(st.Snippets.All()) > 0
}

// switcher is how the gate changes what gopls holds.
type switcher struct{ s *Set }

// Revert closes uri, so that gopls reads it from disk.
func (w switcher) Revert(ctx context.Context, uri string) error {
	if _, err := w.s.c.Client.CloseDocument(ctx, uri); err != nil {
		return fmt.Errorf("reverting another session's unsaved text of %s: %w", w.s.displayURI(uri), ask.Error(err))
	}
	return nil
}

// Overlay gives gopls text as the content of uri.
func (w switcher) Overlay(ctx context.Context, uri, text string) error {
	l, err := w.s.c.Client.Hold(ctx, uri, text, true)
	if err != nil {
		return fmt.Errorf("restoring this session's unsaved text of %s: %w", w.s.displayURI(uri), ask.Error(err))
	}
	l.Release()
	return nil
}

// SwitchTimeout is the timeout of a call.
func (w switcher) SwitchTimeout() time.Duration { return w.s.c.Timeout }

// displayURI shows the file of uri as place.Gate.Display does.
func (s *Set) displayURI(uri string) string {
	p, err := lspclient.URIPath(uri)
	if err != nil {
		return uri
	}
	return s.c.Reads.Display(p)
}
