package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// FuzzLineReader checks the line reader (docs/protocol.md: one message is one line; CRLF
// is one line end whose CR does not count; a line over the cap is reported
// and skipped) against a plain reference: split on LF, drop one CR, report
// what exceeds the cap, skip blank lines.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n{\"b\":2}\r\n\n  \r\nlast"), uint16(8))
	f.Add([]byte("x\r\r\n"+strings.Repeat("y", 40)+"\nz"), uint16(2))
	f.Fuzz(func(t *testing.T, data []byte, limit uint16) {
		max := 1 + int(limit)%300
		// A tiny buffer makes long lines arrive in many chunks.
		lr := &lineReader{r: bufio.NewReaderSize(bytes.NewReader(data), 16), max: max}
		var got []string
		for {
			line, err := lr.next()
			if err == io.EOF {
				break
			}
			if err == errLineTooLong {
				got = append(got, "<too long>")
				continue
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			got = append(got, string(line))
		}
		var want []string
		segs := bytes.Split(data, []byte("\n"))
		for i, seg := range segs {
			if i == len(segs)-1 && len(seg) == 0 {
				break // the stream ended with a line end
			}
			seg = bytes.TrimSuffix(seg, []byte("\r"))
			switch {
			case len(seg) > max:
				want = append(want, "<too long>")
			case len(bytes.TrimSpace(seg)) > 0:
				want = append(want, string(seg))
			}
		}
		if len(got) != len(want) {
			t.Fatalf("cap %d: got %d lines %q, want %d %q", max, len(got), got, len(want), want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("cap %d: line %d is %q, want %q", max, i, got[i], want[i])
			}
		}
	})
}

// FuzzDispatch sends one arbitrary line to a session, initialized or not,
// and checks that whatever happens the server keeps to docs/protocol.md: it writes only
// whole JSON-RPC 2.0 objects, at most one response, that response carries
// the request's own id or none, its error code is one the rules allow, and
// the session still answers a ping afterwards.
func FuzzDispatch(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`, true)
	f.Add(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`, false)
	f.Fuzz(func(t *testing.T, line string, initFirst bool) {
		line = strings.ReplaceAll(line, "\n", " ")
		s := NewServer("fuzz", "v0", &Options{MaxMessageBytes: 4096})
		addTestTools(t, s, false)
		version := ""
		if initFirst {
			version = "2025-11-25"
		}
		got := runLines(t, s, version, []string{line, pingAfter})
		var sent struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal([]byte(line), &sent)
		responses, pongs := 0, 0
		for _, out := range got {
			var m struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Method  *string         `json:"method"`
				Result  json.RawMessage `json:"result"`
				Error   *Error          `json:"error"`
			}
			if err := json.Unmarshal([]byte(out), &m); err != nil || m.JSONRPC != "2.0" {
				t.Fatalf("not a JSON-RPC 2.0 object: %q", out)
			}
			if m.Method != nil {
				if len(m.ID) > 0 || (*m.Method != "notifications/progress" && *m.Method != "notifications/message") {
					t.Fatalf("unexpected request or notification: %q", out)
				}
				continue
			}
			if (m.Result == nil) == (m.Error == nil) {
				t.Fatalf("a response needs exactly one of result and error: %q", out)
			}
			if string(m.ID) == `"after"` && m.Error == nil {
				pongs++
				continue
			}
			responses++
			if len(m.ID) > 0 && !bytes.Equal(m.ID, sent.ID) {
				t.Fatalf("response id %s, but the request's id is %s", m.ID, sent.ID)
			}
			if m.Error != nil {
				switch m.Error.Code {
				case CodeParseError, CodeInvalidRequest, CodeMethodNotFound, CodeInvalidParams, CodeInternalError, CodeNotInitialized:
				default:
					t.Fatalf("error code %d is not one docs/protocol.md allows: %q", m.Error.Code, out)
				}
			}
		}
		if responses > 1 {
			t.Fatalf("%d responses to one line: %q", responses, got)
		}
		if pongs == 0 {
			t.Fatalf("the session did not go on: %q", got)
		}
	})
}
