//go:build !linux

package lspclient

// watchChildren watches gopls's children apart only on Linux, where
// /proc tells each one's age and what it is blocked on cheaply; elsewhere
// the stall watch and the load timeout bound them (stall.go).
func (c *Client) watchChildren(p *process) {}

// A ChildError says that a process gopls ran for a request's package was
// killed (Linux only; see children_linux.go).
type ChildError struct {
	Method   string
	Sentence string
}

func (e *ChildError) Error() string { return e.Method + ": " + e.Sentence }

// A childKill is the record of one kill (see children_linux.go).
type childKill struct {
	dir      string
	sentence string
}
