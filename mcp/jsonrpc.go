package mcp

import (
	"bytes"
	"encoding/json"
)

// JSON-RPC 2.0 and MCP error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeNotInitialized answers anything but ping before the session is
	// initialized.
	CodeNotInitialized = -32002
	// CodeShuttingDown answers a request that arrives while the server is
	// draining before it stops (see [Options.DrainTimeout]).
	CodeShuttingDown = -32000
)

// An Error is a JSON-RPC error object. A handler returns one to choose the
// code the client sees; any other error becomes -32603.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// InvalidParams returns a -32602 error whose message is "Invalid params: "
// followed by msg, which should say what to send instead.
func InvalidParams(msg string) *Error {
	return &Error{Code: CodeInvalidParams, Message: "Invalid params: " + msg}
}

// newError builds an *Error.
func newError(code int, msg string) *Error { return &Error{Code: code, Message: msg} }

// wireMessage is any incoming JSON-RPC message. Fields are raw so that the
// session can tell "absent" from "null" and validate each one itself.
type wireMessage struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// response is an outgoing JSON-RPC response. A nil ID omits the member,
// which is how errors about unidentifiable messages are sent.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Result  any             `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// notification is an outgoing JSON-RPC notification.
type notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

// validID reports whether raw is an id JSON-RPC allows and MCP accepts: a
// string or an integer. Null, booleans, fractions, exponents, objects and
// arrays are not.
func validID(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	switch raw[0] {
	case '"':
		var s string
		return json.Unmarshal(raw, &s) == nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if bytes.ContainsAny(raw, ".eE") {
			return false
		}
		var n json.Number
		return json.Unmarshal(raw, &n) == nil
	}
	return false
}

// isNull reports whether raw is absent or the JSON literal null.
func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	t := trimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

// stringValue decodes raw as a JSON string.
func stringValue(raw json.RawMessage) (string, bool) {
	t := trimSpace(raw)
	if len(t) == 0 || t[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(t, &s) != nil {
		return "", false
	}
	return s, true
}
