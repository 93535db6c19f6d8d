package lspclient

// The modification generation counts the changes to what gopls knows of
// the workspace: every document opened, changed or closed (except a file
// opened or closed with the text a call just read from disk, which changes
// no answer: see Client.quietLocked), every batch of files changed on
// disk, the end of the initial load and every new gopls.
// gopls answers the same question the same way while it stays the same,
// so callers can keep answers keyed by it, and ask again only when it
// moves.
//
// The count is raised once the change is queued for gopls (see notes.go),
// never before, and every request waits until what was queued before it
// is written: a caller that reads a generation, asks gopls, and finds the
// generation unchanged afterwards holds answers that include at least
// every change counted in it. Answers may include a change not counted
// yet (queued, not yet counted); the count that follows makes them look
// old, which is safe. The end of a load of new packages is counted too:
// workspace-wide answers change with it.
//
// A file opened or closed with the disk's text changes no answer, but it
// changes what gopls keeps: the analyzers' diagnostics, and the quick
// fixes made from them, only for open files. So two counts are kept: the
// generation (answers), which callers key their answers by, and every
// change (mods), which keys what depends on gopls's state itself: a full
// diagnosis made (DiagnoseFiles) and a request joined to an identical one
// in flight.

// modified counts one change queued for gopls.
func (c *Client) modified() {
	c.mods.Add(1)
	c.answers.Add(1)
}

// modifiedQuietly counts a change queued for gopls that changes none of
// its answers (see Client.quietLocked).
func (c *Client) modifiedQuietly() { c.mods.Add(1) }

// Generation returns the modification generation, after telling gopls
// about the files changed on disk since the last request (as every
// request does first), so that those count. Equal generations mean gopls
// was told of no change that could change an answer in between.
func (c *Client) Generation() uint64 {
	c.watch.barrier()
	return c.answers.Load()
}

// Changed reports whether gopls was told of any change since gen was
// returned by [Client.Generation], without looking at the disk: after
// work that asked gopls, it says whether the answers belong to gen.
func (c *Client) Changed(gen uint64) bool { return c.answers.Load() != gen }

// stateGeneration returns the count of every change told to gopls, after the
// barrier, as Generation does (see above).
func (c *Client) stateGeneration() uint64 {
	c.watch.barrier()
	return c.mods.Load()
}
