package bridge

import (
	"encoding/json"
	"path/filepath"
)

// ReplayState says what a tool call gives the server to keep for its
// session that a new server must be given again (see mcp.ProxyOptions):
// a call with file and text sets that file's unsaved text; a call that
// names the file alone means the file as it is on disk (see hold), and
// go_close forgets its text, so either forgets it. key names the file's
// state; replay is the call's arguments without apply, so that giving the
// text again never writes. Snippets (text alone) are not kept: their
// buffers are named afresh by each call that makes one.
func ReplayState(tool string, args json.RawMessage) (key string, replay json.RawMessage, forget bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(args, &fields) != nil {
		return "", nil, false
	}
	var file, text string
	if json.Unmarshal(fields["file"], &file) != nil || file == "" {
		return "", nil, false
	}
	key = "file:" + filepath.ToSlash(filepath.Clean(file))
	if json.Unmarshal(fields["text"], &text) != nil || text == "" || tool == "go_close" {
		return key, nil, true
	}
	delete(fields, "apply")
	replay, err := json.Marshal(fields)
	if err != nil {
		return "", nil, false
	}
	return key, replay, false
}

// lostApply answers a call with apply: true whose daemon stopped while
// it ran (see Unrepeatable).
const lostApply = "the shared goplsmcp daemon stopped during this apply, so the call was not sent again; once goplsmcp starts again on this root (the next call starts it) every file of the apply is either as it was or as the edit made it, so check git diff before applying again"

// Unrepeatable says which tool calls a session proxy must never send
// again to a new daemon (see mcp.ProxyOptions): a call with apply: true,
// which may have written files before its daemon stopped, and which the
// new daemon would compute afresh from the files as it finds them. The
// answer is the tool error the client gets instead; "" for any other
// call.
func Unrepeatable(tool string, args json.RawMessage) (answer string) {
	var in struct {
		Apply bool `json:"apply"`
	}
	if json.Unmarshal(args, &in) != nil || !in.Apply {
		return ""
	}
	return lostApply
}
