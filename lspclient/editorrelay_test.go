package lspclient

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRelayFrameReuse writes messages of falling and rising sizes (one
// above the size a buffer is kept at) through one write buffer and reads
// them back through one read buffer, as the relay does with gopls's
// answers: each message is one write and comes back whole, with nothing
// of a longer one before it left over.
func TestRelayFrameReuse(t *testing.T) {
	bodies := []string{
		`{"jsonrpc":"2.0","id":1,"result":"` + strings.Repeat("a", 5000) + `"}`,
		`{"jsonrpc":"2.0","id":2,"result":null}`,
		`{"jsonrpc":"2.0","id":3,"result":"` + strings.Repeat("é", keptFrame) + `"}`,
		`{"jsonrpc":"2.0","method":"window/logMessage","params":{}}`,
		`{}`,
	}
	conn := &bufferConn{}
	var wbuf []byte
	for _, b := range bodies {
		if err := writeMessage(conn, &wbuf, []byte(b)); err != nil {
			t.Fatal(err)
		}
		if cap(wbuf) > keptFrame {
			t.Errorf("after a %d-byte message the write buffer keeps %d bytes, want at most %d", len(b), cap(wbuf), keptFrame)
		}
	}
	if conn.writes != len(bodies) {
		t.Errorf("%d messages took %d writes, want %d", len(bodies), conn.writes, len(bodies))
	}
	br := bufio.NewReader(bytes.NewReader(conn.out.Bytes()))
	var rbuf []byte
	for _, want := range bodies {
		got, err := readMessage(br, rbuf)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, string(got)); diff != "" {
			t.Errorf("read back (-want +got):\n%.400s", diff)
		}
		rbuf = got
	}
	if _, err := readMessage(br, rbuf); err == nil {
		t.Error("reading past the last message: no error")
	}
}

// TestSkipToHeader: the relay takes an editor's input back from a server
// that may have been lost in the middle of reading a message; what is
// left of that message is skipped, up to the next header, whatever its
// case, and a stream already at a header loses nothing.
func TestSkipToHeader(t *testing.T) {
	next := "Content-Length: 2\r\n\r\n{}"
	for _, tc := range []struct{ name, in, want string }{
		{"at a header", next, next},
		{"in a body", `"params":{"text":"x"}}` + next, next},
		{"in a header", "ength: 40\r\n\r\n" + `{"id":1}` + next, next},
		{"lower case", `}}content-length: 2` + "\r\n\r\n{}", "content-length: 2\r\n\r\n{}"},
	} {
		br := bufio.NewReader(strings.NewReader(tc.in))
		if err := skipToHeader(br); err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		rest, _ := io.ReadAll(br)
		if diff := cmp.Diff(tc.want, string(rest)); diff != "" {
			t.Errorf("%s: what is left (-want +got):\n%s", tc.name, diff)
		}
	}
	if err := skipToHeader(bufio.NewReader(strings.NewReader(`{"id":1}`))); err == nil {
		t.Error("a stream that ends without a header: no error")
	}
}
