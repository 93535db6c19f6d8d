// Package buffer owns what goplsmcp keeps of the unsaved text it gives
// gopls: where snippets live (ScratchDir, below the root, never written),
// the snippets each session has open (Snippets), bounded by MaxSnippets,
// each session's overlays (Session), and the gate (Gate) that decides
// which calls run together so that gopls holds the overlays of one
// session at a time. The gate changes what gopls holds through a Switcher
// its caller gives it.
//
// It imports only the standard library; it never imports bridge.
package buffer
