package lspclient

// The modification generation counts the changes to what gopls knows of
// the workspace: every document opened, changed or closed, every batch of
// files changed on disk, the end of the initial load and every new gopls.
// gopls answers the same question the same way while it stays the same,
// so callers can keep answers (and work such as a full diagnosis) keyed by
// it, and ask again only when it moves.
//
// The count is raised once the change is queued for gopls (see notes.go),
// never before, and every request waits until what was queued before it
// is written: a caller that reads a generation, asks gopls, and finds the
// generation unchanged afterwards holds answers that include at least
// every change counted in it. Answers may include a change not counted
// yet (queued, not yet counted); the count that follows makes them look
// old, which is safe. The end of a load of new packages is counted too:
// workspace-wide answers change with it.

// modified counts one change queued for gopls.
func (c *Client) modified() { c.mods.Add(1) }

// Generation returns the modification generation, after telling gopls
// about the files changed on disk since the last request (as every
// request does first), so that those count. Equal generations mean gopls
// was told of no change in between.
func (c *Client) Generation() uint64 {
	c.watch.barrier()
	return c.mods.Load()
}

// Changed reports whether gopls was told of any change since gen was
// returned by [Client.Generation], without looking at the disk: after
// work that asked gopls, it says whether the answers belong to gen.
func (c *Client) Changed(gen uint64) bool { return c.mods.Load() != gen }
