//go:build !windows

package main

// bindChildren does nothing on Unix, where lspclient's guard ends gopls's
// process group whenever goplsmcp ends, however it ends.
//
// Nothing ties goplsmcp to its parent. Linux's parent-death signal fires
// when the thread that started the process ends, not the process: a
// client that spawns its servers from a worker thread which then exits
// (Codex does, after some ten seconds idle) would lose a session it is
// still using. A stdio session ends with its stdin, which every client
// closes, or dies with, when it is done.
func bindChildren() {}
