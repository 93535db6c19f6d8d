package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// maxCallArgs bounds the arguments of goplsmcp call read from stdin, like
// one MCP message.
const maxCallArgs = 2 << 20

// runCall makes one tool call: goplsmcp [flags] call [flags] TOOL [ARGS].
// rest is what follows the flags: the tool's name, then its arguments as
// a JSON object, or - to read them from stdin. The answer goes to stdout,
// and nothing else does.
func runCall(ctx context.Context, cfg *config, rest []string, stdin io.Reader, stdout, stderr io.Writer) error {
	switch {
	case len(rest) == 0:
		return usageError("usage: goplsmcp call [flags] TOOL [ARGS], where ARGS is a JSON object, or - to read it from stdin (see goplsmcp --help)")
	case len(rest) > 2 && !strings.HasPrefix(rest[2], "-"):
		return usageError("call: unexpected argument %q after the tool's arguments; ARGS is one JSON object", rest[2])
	case cfg.version:
		return usageError("--version is not for goplsmcp call")
	}
	tool := rest[0]
	for _, a := range rest {
		if strings.HasPrefix(a, "-") && a != "-" {
			return usageError("call: %s after TOOL; flags go before TOOL", a)
		}
	}
	args := []byte("{}")
	if len(rest) == 2 {
		args = []byte(rest[1])
		if rest[1] == "-" {
			data, err := io.ReadAll(io.LimitReader(stdin, maxCallArgs+1))
			if err != nil {
				return usageError("call: reading the arguments from stdin: %v", err)
			}
			if len(data) > maxCallArgs {
				return usageError("call: the arguments on stdin are over %d bytes", maxCallArgs)
			}
			args = data
		}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil || obj == nil {
		return usageError("call: the arguments must be a JSON object, such as '{\"file\":\"main.go\",\"symbol\":\"main\"}'")
	}

	// A daemon that serves this workspace answers warm.
	if res, ok := callShared(ctx, cfg, tool, json.RawMessage(args)); ok {
		return printCallResult(cfg, tool, res, stdout)
	}
	st, err := startStack(ctx, cfg, stderr, true)
	if err != nil {
		return err
	}
	defer st.close()
	if !st.srv.HasTool(tool) {
		if slices.Contains(bridge.OptionalTools, tool) {
			return usageError("call: %s is one of gopls mcp's optional tools, offered only when --tools names it: goplsmcp call --tools %s %s ...", tool, tool, tool)
		}
		return usageError("call: unknown tool %q; the tools are %s", tool, strings.Join(st.srv.ToolNames(), ", "))
	}
	res, err := st.srv.CallTool(ctx, tool, json.RawMessage(args))
	if err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	err = printCallResult(cfg, tool, res, stdout)
	if cerr := st.close(); cerr != nil {
		st.log.Warn("stopping gopls", "error", cerr)
	}
	return err
}

// printCallResult prints a call's answer on stdout. A tool error has no structured
// result, in MCP as here: with or without --json, it is the message on
// stderr and exit status 1, and stdout stays empty.
func printCallResult(cfg *config, tool string, res *mcp.ToolResultJSON, stdout io.Writer) error {
	var out bytes.Buffer
	switch {
	case res.IsError:
		return &exitError{code: 1, msg: res.Text()}
	case cfg.json:
		if err := json.Indent(&out, res.StructuredContent, "", "  "); err != nil {
			return fmt.Errorf("%s: the structured result is not JSON: %w", tool, err)
		}
		out.WriteByte('\n')
	default:
		out.WriteString(res.Text())
		out.WriteByte('\n')
	}
	_, err := stdout.Write(out.Bytes())
	return err
}
