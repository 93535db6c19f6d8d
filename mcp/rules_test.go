package mcp

import (
	"strings"
	"testing"
)

// Raw lines used by several rows.
const (
	pingAfter   = `{"jsonrpc":"2.0","id":"after","method":"ping"}`
	pongAfter   = `{"jsonrpc":"2.0","id":"after","result":{}}`
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

func initLine(id, version string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
}

func errLine(id string, code, msg string) string {
	if id == "" {
		return `{"jsonrpc":"2.0","error":{"code":` + code + `,"message":"` + msg + `"}}`
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":` + code + `,"message":"` + msg + `"}}`
}

// TestProtocolRules checks each rule of docs/protocol.md (and the protocol side of
// docs/tools.md) with raw lines: a row runs a whole session — initialized at version
// unless it is empty — sends its lines, and compares every message the
// server wrote, in any order, with want. Most rows end with a ping, whose
// answer shows that the session went on.
func TestProtocolRules(t *testing.T) {
	tests := []struct {
		name    string
		design  string // the rule checked, and the page of docs/ that states it
		version string // "" to stay uninitialized
		opts    *Options
		lines   []string
		want    []string
	}{
		// Framing.
		{
			name: "CRLF ends a line", design: "protocol.md: CRLF counts as one line end",
			lines: []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\r", pingAfter},
			want:  []string{`{"jsonrpc":"2.0","id":1,"result":{}}`, pongAfter},
		},
		{
			name: "over-cap line", design: "protocol.md: a line over the message cap is answered -32600 (no id) and skipped; the session goes on",
			opts:  &Options{MaxMessageBytes: 64},
			lines: []string{`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 100) + `"}}`, pingAfter},
			want:  []string{errLine("", "-32600", "Invalid Request: message exceeds 64 bytes"), pongAfter},
		},
		{
			name: "line at the cap with CRLF", design: "protocol.md: the CR is not part of the payload and does not count toward the cap",
			opts:  &Options{MaxMessageBytes: len(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)},
			lines: []string{pingAfter + "\r"},
			want:  []string{pongAfter},
		},
		{
			name: "line one over the cap", design: "protocol.md: a line over the message cap is answered -32600",
			opts:  &Options{MaxMessageBytes: len(pingAfter) - 1},
			lines: []string{pingAfter + "\r"},
			want:  []string{errLine("", "-32600", "Invalid Request: message exceeds 45 bytes")},
		},
		{
			name: "invalid UTF-8", design: "protocol.md: one message is one UTF-8 line",
			lines: []string{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"\xff\"}}", pingAfter},
			want:  []string{errLine("", "-32700", "Parse error"), pongAfter},
		},
		{
			name: "batch", design: "protocol.md: a JSON array (batch) is rejected with -32600", version: "2025-11-25",
			lines: []string{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, pingAfter},
			want:  []string{errLine("", "-32600", "Invalid Request: batches are not supported"), pongAfter},
		},
		{
			name: "empty batch", design: "protocol.md: a JSON array (batch) is rejected with -32600",
			lines: []string{`[]`, pingAfter},
			want:  []string{errLine("", "-32600", "Invalid Request: batches are not supported"), pongAfter},
		},
		{
			name: "malformed JSON", design: "protocol.md: malformed JSON: -32700 with no id",
			lines: []string{`{"jsonrpc":"2.0","id":1,"method":`, pingAfter},
			want:  []string{errLine("", "-32700", "Parse error"), pongAfter},
		},
		{
			name: "malformed array", design: "protocol.md: malformed JSON: -32700 with no id",
			lines: []string{`[{"jsonrpc":"2.0"`, pingAfter},
			want:  []string{errLine("", "-32700", "Parse error"), pongAfter},
		},
		{
			name: "JSON that is not an object", design: "protocol.md: (JSON-RPC) a message is an object: -32600",
			lines: []string{`42`, `"ping"`, `null`, pingAfter},
			want: []string{
				errLine("", "-32600", "Invalid Request: a message must be a JSON object"),
				errLine("", "-32600", "Invalid Request: a message must be a JSON object"),
				errLine("", "-32600", "Invalid Request: a message must be a JSON object"),
				pongAfter,
			},
		},
		{
			name: "null id", design: "protocol.md: a message with a null id: -32600",
			lines: []string{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, pingAfter},
			want:  []string{errLine("", "-32600", "Invalid Request: id must be a string or an integer"), pongAfter},
		},
		{
			name: "boolean id", design: "protocol.md: a message with a boolean id: -32600",
			lines: []string{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, `{"jsonrpc":"2.0","id":false,"method":"ping"}`, pingAfter},
			want: []string{
				errLine("", "-32600", "Invalid Request: id must be a string or an integer"),
				errLine("", "-32600", "Invalid Request: id must be a string or an integer"),
				pongAfter,
			},
		},
		{
			name: "fractional id", design: "protocol.md: a message with a fractional id: -32600",
			lines: []string{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, `{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, `{"jsonrpc":"2.0","id":1.0,"method":"ping"}`, pingAfter},
			want: []string{
				errLine("", "-32600", "Invalid Request: id must be a string or an integer"),
				errLine("", "-32600", "Invalid Request: id must be a string or an integer"),
				errLine("", "-32600", "Invalid Request: id must be a string or an integer"),
				pongAfter,
			},
		},
		{
			name: "object and array ids", design: "protocol.md: a message with an object id: -32600",
			lines: []string{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, pingAfter},
			want: []string{
				errLine("", "-32600", "Invalid Request: id must be a string or an integer"),
				errLine("", "-32600", "Invalid Request: id must be a string or an integer"),
				pongAfter,
			},
		},
		{
			name: "id 0, negative and empty-string ids", design: `docs/protocol.md "id": 0 is a valid id`,
			lines: []string{`{"jsonrpc":"2.0","id":0,"method":"ping"}`, `{"jsonrpc":"2.0","id":-7,"method":"ping"}`, `{"jsonrpc":"2.0","id":"","method":"ping"}`},
			want:  []string{`{"jsonrpc":"2.0","id":0,"result":{}}`, `{"jsonrpc":"2.0","id":-7,"result":{}}`, `{"jsonrpc":"2.0","id":"","result":{}}`},
		},
		{
			name: "jsonrpc member missing or wrong", design: "protocol.md: one JSON-RPC 2.0 message (jsonrpc must be \"2.0\"): -32600",
			lines: []string{`{"id":1,"method":"ping"}`, `{"jsonrpc":"1.0","id":2,"method":"ping"}`, `{"jsonrpc":2.0,"id":3,"method":"ping"}`, pingAfter},
			want: []string{
				errLine("1", "-32600", `Invalid Request: jsonrpc must be \"2.0\"`),
				errLine("2", "-32600", `Invalid Request: jsonrpc must be \"2.0\"`),
				errLine("3", "-32600", `Invalid Request: jsonrpc must be \"2.0\"`),
				pongAfter,
			},
		},
		{
			name: "method missing or not a string", design: "protocol.md: (JSON-RPC) a request names its method: -32600",
			lines: []string{`{"jsonrpc":"2.0","id":1}`, `{"jsonrpc":"2.0","id":2,"method":7}`, `{}`, pingAfter},
			want: []string{
				errLine("1", "-32600", "Invalid Request: method is missing"),
				errLine("2", "-32600", "Invalid Request: method must be a string"),
				errLine("", "-32600", "Invalid Request: method is missing"),
				pongAfter,
			},
		},
		{
			name: "params not an object", design: "protocol.md: (MCP) params is an object: -32602", version: "2025-11-25",
			lines: []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[]}`, `{"jsonrpc":"2.0","id":2,"method":"ping","params":"x"}`},
			want: []string{
				errLine("1", "-32602", "Invalid params: params must be an object"),
				errLine("2", "-32602", "Invalid params: params must be an object"),
			},
		},
		{
			name: "notifications never answered", design: "protocol.md: nothing without an id is ever answered", version: "2025-11-25",
			lines: []string{
				`{"jsonrpc":"2.0","method":"tools/list"}`,
				`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"panic","arguments":{}}}`,
				`{"jsonrpc":"2.0","method":"no/such/notification"}`,
				`{"jsonrpc":"1.0","method":"notifications/initialized"}`,
				`{"jsonrpc":"2.0","method":42}`,
				`{"jsonrpc":"2.0","method":"notifications/cancelled","params":"junk"}`,
				pingAfter,
			},
			want: []string{pongAfter},
		},
		{
			name: "client responses ignored", design: "protocol.md: nothing without an id is ever answered (responses are not requests)",
			lines: []string{`{"jsonrpc":"2.0","id":5,"result":{}}`, `{"jsonrpc":"2.0","id":6,"error":{"code":1,"message":"x"}}`, pingAfter},
			want:  []string{pongAfter},
		},

		// Lifecycle.
		{
			name: "requests before initialize", design: "protocol.md: anything else earlier is answered promptly with -32002",
			lines: []string{
				`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
				`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`,
				`{"jsonrpc":"2.0","id":3,"method":"resources/list"}`,
				`{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"greet"}}`,
				`{"jsonrpc":"2.0","id":5,"method":"logging/setLevel","params":{"level":"debug"}}`,
				`{"jsonrpc":"2.0","id":6,"method":"no/such"}`,
			},
			want: []string{
				errLine("1", "-32002", "Server not initialized"), errLine("2", "-32002", "Server not initialized"),
				errLine("3", "-32002", "Server not initialized"), errLine("4", "-32002", "Server not initialized"),
				errLine("5", "-32002", "Server not initialized"), errLine("6", "-32002", "Server not initialized"),
			},
		},
		{
			name: "server/discover probe, then initialize", design: "protocol.md: a dual-era server answers the server/discover probe, then a normal initialize",
			lines: []string{
				`{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
				initLine(`"i"`, "2025-11-25"),
				initialized,
				`{"jsonrpc":"2.0","id":"p","method":"prompts/list","params":{"cursor":""}}`,
			},
			want: []string{
				discoverLine(`"d"`),
				`{"jsonrpc":"2.0","id":"i","result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"test","version":"v0","title":"Test server","icons":[{"src":"data:image/svg+xml;base64,PHN2Zy8+","mimeType":"image/svg+xml"}]},` +
					`"capabilities":{"tools":{"listChanged":false},"resources":{"listChanged":false,"subscribe":false},"prompts":{"listChanged":false},"logging":{},"completions":{}},"instructions":"Use the tools."}}`,
				`{"jsonrpc":"2.0","id":"p","result":{"prompts":[{"name":"greet","title":"Greet","description":"Greets someone.","icons":[{"src":"data:image/svg+xml;base64,PHN2Zy8+","mimeType":"image/svg+xml"}],` +
					`"arguments":[{"name":"name","title":"Name","description":"who to greet","required":true},{"name":"style","description":"formal or casual"}]}]}}`,
			},
		},
		{
			name: "server/discover after initialize", design: "protocol.md: server/discover answers at any time", version: "2025-11-25",
			lines: []string{`{"jsonrpc":"2.0","id":"d","method":"server/discover"}`},
			want:  []string{discoverLine(`"d"`)},
		},
		{
			name: "ping before initialize", design: "protocol.md: ping is allowed at any time",
			lines: []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`},
			want:  []string{`{"jsonrpc":"2.0","id":1,"result":{}}`},
		},
		{
			name: "requests between initialize and initialized", design: "protocol.md: must initialize, then send notifications/initialized",
			lines: []string{initLine("1", "2024-11-05"), `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, initialized, `{"jsonrpc":"2.0","id":3,"method":"resources/templates/list"}`},
			want: []string{
				`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05","serverInfo":{"name":"test","version":"v0"},` +
					`"capabilities":{"tools":{"listChanged":false},"resources":{"listChanged":false,"subscribe":false},"prompts":{"listChanged":false},"logging":{}},"instructions":"Use the tools."}}`,
				errLine("2", "-32002", "Server not initialized"),
				`{"jsonrpc":"2.0","id":3,"result":{"resourceTemplates":[]}}`,
			},
		},
		{
			name: "second initialize", design: "protocol.md: a second initialize is an error (-32600)", version: "2025-06-18",
			lines: []string{initLine("2", "2025-06-18"), pingAfter},
			want:  []string{errLine("2", "-32600", "Invalid Request: the session is already initialized"), pongAfter},
		},
		{
			name: "initialize without a version", design: "protocol.md: any other non-empty version is answered as 2025-11-25 (an empty one is invalid)",
			lines: []string{
				`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
				`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":""}}`,
				`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":20250618}}`,
				`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`,
			},
			want: []string{
				errLine("1", "-32602", "Invalid params: protocolVersion must be a non-empty string"),
				errLine("2", "-32602", "Invalid params: protocolVersion must be a non-empty string"),
				errLine("3", "-32602", "Invalid params: protocolVersion must be a non-empty string"),
				errLine("4", "-32002", "Server not initialized"),
			},
		},
		{
			name: "unknown method", design: "protocol.md: unknown method after init -32601", version: "2025-11-25",
			lines: []string{`{"jsonrpc":"2.0","id":3,"method":"no/such"}`, `{"jsonrpc":"2.0","id":4,"method":"resources/subscribe","params":{"uri":"test://hello"}}`},
			want:  []string{errLine("3", "-32601", "Method not found"), errLine("4", "-32601", "Method not found")},
		},

		// Tools.
		{
			name: "unknown tool", design: "protocol.md: an unknown tool is a result with the constant text unknown tool; the name is not echoed", version: "2025-11-25",
			lines: []string{`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope <script>","arguments":{}}}`},
			want:  []string{`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"unknown tool"}],"isError":true}}`},
		},
		{
			name: "arguments not an object", design: "protocol.md: arguments that is not an object: -32602", version: "2025-11-25",
			lines: []string{
				`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":[1]}}`,
				`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":"text"}}`,
				`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope","arguments":5}}`,
			},
			want: []string{
				errLine("1", "-32602", "Invalid params: arguments must be an object"),
				errLine("2", "-32602", "Invalid params: arguments must be an object"),
				errLine("3", "-32602", "Invalid params: arguments must be an object"),
			},
		},
		{
			name: "tool name missing", design: "protocol.md: (MCP) tools/call names a tool: -32602", version: "2025-11-25",
			lines: []string{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}`, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":3}}`},
			want:  []string{errLine("1", "-32602", "Invalid params: name must be a string"), errLine("2", "-32602", "Invalid params: name must be a string")},
		},
		{
			name: "tool mistake", design: "protocol.md: a tool mistake is a successful response with isError and a sentence, and no structuredContent", version: "2025-11-25",
			lines: []string{
				`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"fail","arguments":{}}}`,
				`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a","extra":1}}}`,
			},
			want: []string{
				`{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"the tool failed on purpose"}],"isError":true}}`,
				`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"invalid arguments: unknown arguments [\"extra\"]; the tool takes count, text"}],"isError":true}}`,
			},
		},
		{
			name: "tool mistake before 2025-06-18", design: "protocol.md: a failed call has no structuredContent, at any version", version: "2025-03-26",
			lines: []string{`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"fail"}}`},
			want:  []string{`{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"the tool failed on purpose"}],"isError":true}}`},
		},
		{
			name: "panic", design: "protocol.md: unexpected failure: -32603 Internal error", version: "2025-11-25",
			lines: []string{`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"panic","arguments":{}}}`, pingAfter},
			want:  []string{errLine("8", "-32603", "Internal error"), pongAfter},
		},
		{
			name: "unencodable result", design: "protocol.md: unexpected failure: -32603 Internal error", version: "2025-11-25",
			lines: []string{`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"unencodable"}}`},
			want:  []string{errLine("9", "-32603", "Internal error")},
		},
		{
			name: "result over the cap", design: "safety.md: an oversized result becomes an error result saying how to narrow the call", version: "2025-11-25",
			opts:  &Options{MaxResultBytes: 200},
			lines: []string{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"abcdefghij","count":30}}}`},
			want: []string{`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"the answer is 677 bytes, over the limit of 200; narrow the call: pass a smaller limit, one file, or a more specific query"}],` +
				`"isError":true}}`},
		},

		// Resources (docs/tools.md).
		{
			name: "resources/list and read", design: "tools.md: resources, JSON or text with their MIME type", version: "2025-11-25",
			lines: []string{
				`{"jsonrpc":"2.0","id":1,"method":"resources/list"}`,
				`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"test://hello"}}`,
			},
			want: []string{
				`{"jsonrpc":"2.0","id":1,"result":{"resources":[{"uri":"test://hello","name":"hello","title":"Hello","description":"A greeting.","mimeType":"text/plain","icons":[{"src":"data:image/svg+xml;base64,PHN2Zy8+","mimeType":"image/svg+xml"}]}]}}`,
				`{"jsonrpc":"2.0","id":2,"result":{"contents":[{"uri":"test://hello","mimeType":"text/plain","text":"hello, world"}]}}`,
			},
		},
		{
			name: "unknown resource", design: "protocol.md: unknown resource: -32602", version: "2025-11-25",
			lines: []string{
				`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"test://nope"}}`,
				`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{}}`,
				`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":["test://hello"]}}`,
			},
			want: []string{
				errLine("1", "-32602", "Invalid params: unknown resource; resources/list names them"),
				errLine("2", "-32602", "Invalid params: uri must be a string"),
				errLine("3", "-32602", "Invalid params: uri must be a string"),
			},
		},

		// Prompts (docs/tools.md).
		{
			name: "prompts/get", design: "tools.md: prompts with a required argument", version: "2025-11-25",
			lines: []string{`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"greet","arguments":{"name":"ada"}}}`},
			want:  []string{`{"jsonrpc":"2.0","id":1,"result":{"messages":[{"role":"user","content":{"type":"text","text":"Greet ada."}}]}}`},
		},
		{
			name: "prompt mistakes", design: "protocol.md: unknown prompt, missing required prompt argument, or arguments that is not an object: -32602", version: "2025-11-25",
			lines: []string{
				`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"nope"}}`,
				`{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"greet"}}`,
				`{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"greet","arguments":{"name":""}}}`,
				`{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"greet","arguments":["ada"]}}`,
				`{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"greet","arguments":{"name":1}}}`,
				`{"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":"greet","arguments":{"name":"ada","mood":"x"}}}`,
				`{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"greet","arguments":{"name":"ada","style":"rude"}}}`,
				`{"jsonrpc":"2.0","id":8,"method":"prompts/get","params":{}}`,
			},
			want: []string{
				errLine("1", "-32602", "Invalid params: unknown prompt; prompts/list names them"),
				errLine("2", "-32602", "Invalid params: missing required argument name"),
				errLine("3", "-32602", "Invalid params: missing required argument name"),
				errLine("4", "-32602", "Invalid params: arguments must be an object"),
				errLine("5", "-32602", "Invalid params: argument name must be a string"),
				errLine("6", "-32602", "Invalid params: prompt greet has no argument mood"),
				errLine("7", "-32602", "Invalid params: style must be formal or casual"),
				errLine("8", "-32602", "Invalid params: name must be a string"),
			},
		},
		{
			name: "completion of a prompt argument", design: "tools.md: completion/complete for a prompt argument", version: "2025-11-25",
			lines: []string{
				`{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"a"}}}`,
				`{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"g"},"context":{"arguments":{"style":"!"}}}}`,
				`{"jsonrpc":"2.0","id":3,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"style","value":""}}}`,
			},
			want: []string{
				`{"jsonrpc":"2.0","id":1,"result":{"completion":{"values":["ada","alan"],"total":2,"hasMore":false}}}`,
				`{"jsonrpc":"2.0","id":2,"result":{"completion":{"values":["grace!"],"total":1,"hasMore":false}}}`,
				`{"jsonrpc":"2.0","id":3,"result":{"completion":{"values":[],"total":0,"hasMore":false}}}`,
			},
		},
		{
			name: "completion mistakes", design: "protocol.md: unknown prompt: -32602 (in completion/complete too)", version: "2025-11-25",
			lines: []string{
				`{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"name","value":""}}}`,
				`{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"test://{x}"},"argument":{"name":"x","value":""}}}`,
				`{"jsonrpc":"2.0","id":3,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"mood","value":""}}}`,
				`{"jsonrpc":"2.0","id":4,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name"}}}`,
				`{"jsonrpc":"2.0","id":5,"method":"completion/complete","params":{"ref":{"type":"ref/tool","name":"echo"},"argument":{"name":"name","value":""}}}`,
				`{"jsonrpc":"2.0","id":6,"method":"completion/complete","params":{"ref":"greet"}}`,
			},
			want: []string{
				errLine("1", "-32602", "Invalid params: unknown prompt; prompts/list names them"),
				errLine("2", "-32602", "Invalid params: there are no resource templates to complete"),
				errLine("3", "-32602", "Invalid params: prompt greet has no argument mood"),
				errLine("4", "-32602", "Invalid params: argument.value must be a string"),
				errLine("5", "-32602", `Invalid params: ref.type must be \"ref/prompt\" or \"ref/resource\"`),
				errLine("6", "-32602", "Invalid params: ref and argument must be objects"),
			},
		},

		// Logging.
		{
			name: "logging/setLevel", design: "protocol.md: logging/setLevel is honoured; an invalid level is -32602", version: "2025-11-25",
			lines: []string{
				`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}`,
				`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"verbose"}}`,
				`{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":3}}`,
				`{"jsonrpc":"2.0","id":4,"method":"logging/setLevel"}`,
			},
			want: []string{
				`{"jsonrpc":"2.0","id":1,"result":{}}`,
				errLine("2", "-32602", "Invalid params: level must be one of debug, info, notice, warning, error, critical, alert, emergency"),
				errLine("3", "-32602", "Invalid params: level must be one of debug, info, notice, warning, error, critical, alert, emergency"),
				errLine("4", "-32602", "Invalid params: level must be one of debug, info, notice, warning, error, critical, alert, emergency"),
			},
		},

		// Cancellation that has nothing to cancel.
		{
			name: "unknown and late cancellations", design: "protocol.md: unknown or late cancellations are ignored", version: "2025-11-25",
			lines: []string{
				`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999,"reason":"x"}}`,
				`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"bad":1}}}`,
				`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"after"}}`,
				pingAfter,
			},
			want: []string{pongAfter},
		},
	}
	// Over HTTP every message of an initialized session must be answered
	// exactly as over stdio (docs/sidecar.md: the same session behind another
	// transport). Rows about line framing, or about what precedes
	// initialize, have HTTP counterparts of their own in TestHTTPRules:
	// there a session exists only once initialize has succeeded.
	for _, transport := range []string{"stdio", "http"} {
		for _, tt := range tests {
			if transport == "http" && (tt.version == "" || tt.opts != nil && tt.opts.MaxMessageBytes != 0) {
				continue
			}
			t.Run(transport+"/"+tt.name, func(t *testing.T) {
				opts := &Options{Title: "Test server", Instructions: "Use the tools.", Icons: testIcons}
				if tt.opts != nil {
					opts.MaxMessageBytes = tt.opts.MaxMessageBytes
					opts.MaxResultBytes = tt.opts.MaxResultBytes
				}
				run := runLines
				if transport == "http" {
					run = runLinesHTTP
				}
				got := run(t, testServer(t, opts), tt.version, tt.lines)
				if diff := sameMessages(t, tt.want, got); diff != "" {
					t.Errorf("%s: messages (-want +got):\n%s", tt.design, diff)
				}
			})
		}
	}
}
