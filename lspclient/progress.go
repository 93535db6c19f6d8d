package lspclient

import (
	"context"
	"encoding/json"
	"sync"
)

// Progress is one $/progress report from gopls.
type Progress struct {
	// Title names the work, e.g. "Setting up workspace".
	Title string
	// Message is the latest status text, if any.
	Message string
	// Done is set on the report that ends the work.
	Done bool
}

// progressTracker follows gopls's work-done progress and knows when the
// initial workspace load has ended.
type progressTracker struct {
	mu       sync.Mutex
	titles   map[string]string // token → title of work in progress
	loaded   chan struct{}     // closed when the initial load has ended
	loadErr  error
	onReport func(Progress)
	subs     map[int]func(Progress)
	nextSub  int
	// ends are closed when the work of their token ends (see expectEnd).
	ends map[string]chan struct{}
}

func (t *progressTracker) init(onReport func(Progress)) {
	t.titles = make(map[string]string)
	t.loaded = make(chan struct{})
	t.onReport = onReport
	t.subs = make(map[int]func(Progress))
	t.ends = make(map[string]chan struct{})
}

// expectEnd returns a channel closed when the work reported under token
// (its JSON) ends, or when gopls is replaced; forget drops it unused.
func (t *progressTracker) expectEnd(token string) (ended <-chan struct{}, forget func()) {
	ch := make(chan struct{})
	t.mu.Lock()
	t.ends[token] = ch
	t.mu.Unlock()
	return ch, func() {
		t.mu.Lock()
		delete(t.ends, token)
		t.mu.Unlock()
	}
}

func (t *progressTracker) create(token json.RawMessage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.titles[string(token)] = ""
}

func (t *progressTracker) report(params json.RawMessage) {
	var p struct {
		Token json.RawMessage `json:"token"`
		Value struct {
			Kind    string `json:"kind"`
			Title   string `json:"title"`
			Message string `json:"message"`
		} `json:"value"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	key := string(p.Token)
	t.mu.Lock()
	title := t.titles[key]
	switch p.Value.Kind {
	case "begin":
		title = p.Value.Title
		t.titles[key] = title
	case "end":
		delete(t.titles, key)
		if ch, ok := t.ends[key]; ok {
			close(ch)
			delete(t.ends, key)
		}
	}
	subs := make([]func(Progress), 0, len(t.subs))
	for _, fn := range t.subs {
		subs = append(subs, fn)
	}
	t.mu.Unlock()
	report := Progress{Title: title, Message: p.Value.Message, Done: p.Value.Kind == "end"}
	if t.onReport != nil {
		t.onReport(report)
	}
	for _, fn := range subs {
		fn(report)
	}
}

// SubscribeProgress calls fn with each $/progress report from gopls until
// the returned function is called; no call of fn starts after that returns. fn
// runs on the connection's reading goroutine and must not block.
func (c *Client) SubscribeProgress(fn func(Progress)) (unsubscribe func()) {
	t := &c.prog
	t.mu.Lock()
	id := t.nextSub
	t.nextSub++
	t.subs[id] = func(p Progress) {
		// Checked again under the lock so that no call starts after
		// unsubscribe has returned.
		t.mu.Lock()
		_, live := t.subs[id]
		t.mu.Unlock()
		if live {
			fn(p)
		}
	}
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		delete(t.subs, id)
	}
}

func (t *progressTracker) markLoaded(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	select {
	case <-t.loaded:
	default:
		t.loadErr = err
		close(t.loaded)
	}
}

// reset forgets the work of a gopls that has ended, ending it for whoever
// follows the reports, and starts waiting for its replacement's initial
// load. Closing the old channel wakes WaitLoaded, which then waits on the
// new one.
func (t *progressTracker) reset() {
	t.mu.Lock()
	select {
	case <-t.loaded:
	default:
		close(t.loaded)
	}
	t.loaded = make(chan struct{})
	t.loadErr = nil
	for key, ch := range t.ends {
		close(ch)
		delete(t.ends, key)
	}
	tokens := make([]string, 0, len(t.titles))
	for token := range t.titles {
		tokens = append(tokens, token)
	}
	t.mu.Unlock()
	for _, token := range tokens {
		t.report(json.RawMessage(`{"token":` + token + `,"value":{"kind":"end"}}`))
	}
}

// WaitLoaded waits until gopls has finished its initial workspace load.
// After a restart that is the load of the new gopls. It fails at once if
// the client is closed or gopls is in a crash loop.
func (c *Client) WaitLoaded(ctx context.Context) error {
	for {
		changed, err := c.state()
		if err != nil {
			return err
		}
		c.prog.mu.Lock()
		loaded := c.prog.loaded
		c.prog.mu.Unlock()
		select {
		case <-loaded:
			c.prog.mu.Lock()
			current, err := c.prog.loaded == loaded, c.prog.loadErr
			c.prog.mu.Unlock()
			if current {
				return err
			}
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Loaded reports whether the initial workspace load has ended.
func (c *Client) Loaded() bool {
	c.prog.mu.Lock()
	loaded := c.prog.loaded
	c.prog.mu.Unlock()
	select {
	case <-loaded:
		return true
	default:
		return false
	}
}

// ActiveWork returns the titles of the work gopls is reporting progress on.
func (c *Client) ActiveWork() []string {
	c.prog.mu.Lock()
	defer c.prog.mu.Unlock()
	var titles []string
	for _, title := range c.prog.titles {
		if title != "" {
			titles = append(titles, title)
		}
	}
	return titles
}
