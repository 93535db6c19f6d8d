// Package place owns the one read gate of goplsmcp: whether the bytes of a
// path may be read to answer a call. A path passes if, after resolving its
// symbolic links, it is inside the workspace root, or it is Go source
// (a .go file or go.mod) of the Go installation (GOROOT) or the module
// cache (GOMODCACHE). Every read of a workspace path for an answer goes
// through Gate.ReadFile; a place outside the gate may be named as gopls
// gave it, but its text is never read. It also says how a path is shown
// (relative to the root, or under $GOROOT or $GOMODCACHE).
//
// Resolver is the front of addressing: it turns a client's file, uri or dir
// argument into a clean absolute path confined to the root, checking it
// first as text (CheckPathText: no URI, Windows path on other systems,
// percent-encoding or unexpanded variable), then lexically, then through
// its symbolic links; otherwise it says in one sentence why not.
//
// It owns positions. Every position an answer shows and every position
// argument of goplsmcp's own tools is written and read here and nowhere
// else (TestOnePlaceForPositions): as go build and go vet print them, a
// 1-based line and a 1-based column counted in bytes (Pos: line:col;
// Span: line:col-line:col; Loc: file:line:col: source line). gopls speaks
// LSP's 0-based lines and UTF-16 characters; they are converted at the
// edges through the text of their line (FromLSP, Pos.LSP, Lines.Pos),
// and to and from byte offsets (UTF16Col, ByteOffset, LineIndex,
// IdentColumns). Lines reads the source lines places are shown with.
//
// Imports: memo (the files resolved lately, the lines of a text), render
// (echoes of arguments in messages) and lspclient (Windows paths, compared
// without regard to case; file URIs); besides, the standard library and
// go.lsp.dev/protocol.
// bridge composes a Gate and a Resolver and passes them down.
package place
