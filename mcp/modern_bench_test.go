package mcp

import (
	"bufio"
	"context"
	"io"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkCallEra is one tools/call of a trivial tool over stdio (pipes,
// in process), answered before the next is sent: in a 2025-11-25 session
// after initialize, and as a 2026-07-28 request naming its version and
// capabilities in _meta, with no session. The difference of the two is
// what the modern path adds per call (issue 29 asks ≤ 0.1 ms):
//
//	go test -run '^$' -bench CallEra -benchmem -count 5 ./mcp
func BenchmarkCallEra(b *testing.B) {
	for _, era := range []string{"legacy", "modern"} {
		b.Run(era, func(b *testing.B) {
			s := NewServer("bench", "v0", nil)
			err := AddTool(s, Tool{Name: "echo", Title: "Echo", Description: "Echoes text.", Annotations: readOnlyHints()},
				func(ctx context.Context, in *echoIn) (*echoOut, error) { return &echoOut{Echo: in.Text}, nil })
			if err != nil {
				b.Fatal(err)
			}
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan error, 1)
			go func() {
				done <- s.ServeStdio(context.Background(), inR, outW)
				outW.Close()
			}()
			defer func() {
				inW.Close()
				if err := <-done; err != nil {
					b.Errorf("session: %v", err)
				}
			}()
			out := bufio.NewReader(outR)
			exchange := func(line string) string {
				b.Helper()
				if _, err := io.WriteString(inW, line+"\n"); err != nil {
					b.Fatalf("writing to the server: %v", err)
				}
				answer, err := out.ReadString('\n')
				if err != nil {
					b.Fatalf("reading the answer to %.60s: %v", line, err)
				}
				return answer
			}
			params := `"name":"echo","arguments":{"text":"hi"}`
			call := func(id string) string {
				return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{` + params + `}}`
			}
			if era == "legacy" {
				exchange(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
				if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
					b.Fatal(err)
				}
			} else {
				call = func(id string) string { return modernLine(id, "tools/call", params) }
			}
			b.ResetTimer()
			for i := range b.N {
				answer := exchange(call(strconv.Itoa(i)))
				if !strings.Contains(answer, `"text":"echo: hi"`) || strings.Contains(answer, `"isError"`) {
					b.Fatalf("call %d answered %s", i, answer)
				}
			}
		})
	}
}
