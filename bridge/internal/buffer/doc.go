// Package buffer owns what goplsmcp keeps of the unsaved text it gives
// gopls: where snippets live (ScratchDir, below the root, never written)
// and the snippets each session has open (Snippets), bounded by
// MaxSnippets. The overlays each session holds over the shared gopls, and
// the gate that switches them, are still kept by bridge (sessions.go).
//
// It imports only the standard library; it never imports bridge.
package buffer
