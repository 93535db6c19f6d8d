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
