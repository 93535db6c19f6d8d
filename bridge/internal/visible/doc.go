// Package visible keeps control characters from a repository out of what
// goplsmcp answers: a doc comment, string constant, struct tag, file or
// directory name may hold ESC, BEL or NUL, and a terminal that shows a
// tool's output would act on them (retitle the window, clear the screen,
// with OSC 52 set the clipboard). Every tool result (its text, every
// string in its structured content, its resource links and its error),
// every resource's text and every prompt's messages pass through here on
// their way to the mcp layer, where each control character but newline
// and tab becomes the stand-in mcp.StandIn chooses, and invalid UTF-8
// becomes U+FFFD. The tools themselves do nothing about it.
//
// Imports: mcp; besides, the standard library.
package visible
