package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

// A toolQuestion is one realistic question to one tool, asked of goplsmcp
// and, where gopls mcp has the tool, of gopls mcp for the same facts
// (table 6). Every tool goplsmcp lists should have one on each
// workspace: the tables below are keyed by tool, and a listed tool
// missing from them is reported as not measured (its correctness is its
// catalogue samples' and its tests', in bridge).
type toolQuestion struct {
	tool string
	what string
	// args are goplsmcp's arguments; peer gopls mcp's for the same facts,
	// nil when there is no such question. Paths are relative to the
	// root; "file" and "files" are made absolute for gopls mcp, which
	// takes only absolute paths.
	args, peer map[string]any
	// prepare, if set, completes args (and peer) from the workspace's
	// files: positions found by their text, texts derived from files.
	prepare func(ws *workspace, q *toolQuestion) error
	// count, if set, reads the number of items from an answer, so that
	// sizes are compared only when both answers list the same number.
	count func(a answer, ours bool) (int, bool)
	unit  string
	// setup are calls made first, unmeasured (go_close needs a buffer to
	// forget); cleanup calls made after (an overlay left behind would
	// change what later questions see).
	setup, cleanup []toolCall
	// sameFacts is false for a question whose answer is meant to say
	// less than gopls mcp's (a default limit): shown, not judged.
	notSameFacts bool
}

type toolCall struct {
	tool string
	args map[string]any
}

// questionSet is the questions of one workspace: one per tool, and extra
// ones shown after them.
type questionSet struct {
	byTool map[string]toolQuestion
	extra  []toolQuestion
}

// at returns a prepare function that sets the position of needle's
// text, offset bytes into it, in the question's file (and name, if
// given, so that goplsmcp snaps to it).
func at(needle string, offset int, name string) func(ws *workspace, q *toolQuestion) error {
	return func(ws *workspace, q *toolQuestion) error {
		file, _ := q.args["file"].(string)
		p, err := find(ws.root, file, needle, offset)
		if err != nil {
			return err
		}
		q.args["line"], q.args["column"] = p.line+1, p.char+1
		if name != "" {
			q.args["name"] = name
		}
		return nil
	}
}

// linesFrom returns a prepare function that sets a range of n lines of
// the question's file, from the line holding needle.
func linesFrom(needle string, n int) func(ws *workspace, q *toolQuestion) error {
	return func(ws *workspace, q *toolQuestion) error {
		file, _ := q.args["file"].(string)
		p, err := find(ws.root, file, needle, 0)
		if err != nil {
			return err
		}
		q.args["startLine"], q.args["endLine"] = p.line, p.line+n-1
		return nil
	}
}

// closeQuestion is go_close of an overlay of file, given first as an
// unsaved edit (the file with a line added), as an agent forgets an edit
// it checked and dropped.
func closeQuestion(file string) toolQuestion {
	q := toolQuestion{tool: "go_close", what: "forget the unsaved text given for " + file, args: map[string]any{"file": file}}
	q.prepare = func(ws *workspace, q *toolQuestion) error {
		data, err := os.ReadFile(absPath(ws, file))
		if err != nil {
			return err
		}
		q.setup = []toolCall{{"go_diagnostics", map[string]any{"file": file, "text": string(data) + "\n// an unsaved line\n"}}}
		return nil
	}
	return q
}

const (
	// formatSnippet and importsSnippet are the snippets an agent has
	// formatted, or its imports fixed, before writing them into a file.
	formatSnippet  = "package scratch\n\nimport \"strings\"\nfunc Title(s string)string{\nreturn strings.ToUpper(s[:1])+s[1:]\n}\n"
	importsSnippet = "package scratch\n\nimport \"os\"\n\nfunc Greet(name string) string {\n\treturn fmt.Sprintf(\"hello, %s\", strings.TrimSpace(name))\n}\n"
	// completeSnippet is a handler being written, cut after "w.".
	completeSnippet = "package scratch\n\nimport \"net/http\"\n\nfunc hello(w http.ResponseWriter, r *http.Request) {\n\tw.\n}\n"
)

// fixtureQuestions are the questions of table 6 on the bench fixture.
func fixtureQuestions() questionSet {
	core := fixtureModule + "/core"
	broken := []string{"broken/broken.go", "broken/vet.go"}
	qs := []toolQuestion{
		{tool: "go_workspace", what: "the workspace", args: map[string]any{}, peer: map[string]any{}},
		{tool: "go_search", what: `symbol search "Amount"`, args: map[string]any{"query": "Amount", "limit": 100}, peer: map[string]any{"query": "Amount"}},
		{tool: "go_file_context", what: "file context of inventory/item.go", args: map[string]any{"file": "inventory/item.go", "limit": 1000}, peer: map[string]any{"file": "inventory/item.go"}},
		{tool: "go_package_api", what: "package API of " + core, args: map[string]any{"packagePaths": []string{core}, "limit": 10000}, peer: map[string]any{"packagePaths": []string{core}}},
		{tool: "go_symbol_references", what: fmt.Sprintf("references of core.Wrap (%d uses), every one listed", wrapUses),
			args:  map[string]any{"file": "core/errors.go", "symbol": "Wrap", "includeDeclaration": true, "limit": 1000},
			peer:  map[string]any{"file": "core/errors.go", "symbol": "Wrap"},
			count: refCount, unit: "references"},
		{tool: "go_rename_symbol", what: "rename core.ParseSKU → ParseStockKeepingUnit",
			args: map[string]any{"file": "core/sku.go", "symbol": "ParseSKU", "new_name": "ParseStockKeepingUnit"},
			peer: map[string]any{"file": "core/sku.go", "symbol": "ParseSKU", "new_name": "ParseStockKeepingUnit"}},
		{tool: "go_diagnostics", what: "diagnostics of the broken package", args: map[string]any{"files": broken}, peer: map[string]any{"files": broken},
			count: diagnosticCount, unit: "diagnostics"},
		{tool: "go_describe", what: "describe core.Store, from inventory/item.go", args: map[string]any{"file": "inventory/item.go", "symbol": "core.Store"}},
		{tool: "go_definition", what: "definition of the core.Wrap called in NewItem", args: map[string]any{"file": "inventory/item.go"},
			prepare: at("core.Wrap(", len("core."), "Wrap")},
		{tool: "go_implementations", what: "implementations of core.Store", args: map[string]any{"file": "core/store.go", "symbol": "Store"}},
		{tool: "go_symbols", what: "outline of inventory/item.go", args: map[string]any{"file": "inventory/item.go"}},
		{tool: "go_complete", what: `completion after "i." in (*Item).Rename`, args: map[string]any{"file": "inventory/item.go"},
			prepare: at("\ti.Revision++", len("\ti."), "")},
		{tool: "go_signature", what: "signature inside the fmt.Errorf call of (*Item).Validate", args: map[string]any{"file": "inventory/item.go"},
			prepare: at(`fmt.Errorf("%s has no name", i.ID)`, len(`fmt.Errorf("%s has no name", `), "")},
		{tool: "go_tokens", what: "semantic tokens of 40 lines of inventory/item.go", args: map[string]any{"file": "inventory/item.go"},
			prepare: linesFrom("// NewItem returns", 40)},
		{tool: "go_format", what: "format a 6-line snippet", args: map[string]any{"text": formatSnippet}},
		{tool: "go_organize_imports", what: "organize the imports of a 7-line snippet", args: map[string]any{"text": importsSnippet}},
		{tool: "go_code_actions", what: "code actions at the composite literal of NewItem", args: map[string]any{"file": "inventory/item.go"},
			prepare: at("return &Item{ID: id", len("return &"), "Item")},
		{tool: "go_call_hierarchy", what: "callers of core.ParseSKU", args: map[string]any{"file": "core/sku.go", "symbol": "ParseSKU"}},
		{tool: "go_type_hierarchy", what: "type hierarchy of core.Store", args: map[string]any{"file": "core/store.go", "symbol": "Store"}},
		closeQuestion("inventory/item.go"),
		{tool: "go_source", what: "source of core.ParseSKU", args: map[string]any{"file": "core/sku.go", "symbol": "ParseSKU"}},
		{tool: "go_package_graph", what: "importers of " + core, args: map[string]any{"packagePaths": []string{core}}},
		// ./... holds package broken, which govulncheck cannot load.
		{tool: "go_vulncheck", what: "vulnerabilities of ./inventory/...", args: map[string]any{"pattern": "./inventory/..."}, peer: map[string]any{"pattern": "./inventory/..."}},
	}
	extra := []toolQuestion{
		{tool: "go_symbol_references", what: fmt.Sprintf("references of core.Wrap (%d uses), goplsmcp's default limit (100 listed, per-file counts for all)", wrapUses),
			args: map[string]any{"file": "core/errors.go", "symbol": "Wrap"}, peer: map[string]any{"file": "core/errors.go", "symbol": "Wrap"},
			notSameFacts: true},
	}
	return newQuestionSet(qs, extra)
}

// gorootQuestions are the questions of table 6 on GOROOT/src: what an
// agent asks about net/http and net/textproto.
func gorootQuestions() questionSet {
	qs := []toolQuestion{
		{tool: "go_workspace", what: "the workspace", args: map[string]any{}, peer: map[string]any{}},
		{tool: "go_search", what: `symbol search "Handler"`, args: map[string]any{"query": "Handler", "limit": 100}, peer: map[string]any{"query": "Handler"}},
		{tool: "go_file_context", what: "file context of net/http/client.go", args: map[string]any{"file": "net/http/client.go", "limit": 1000}, peer: map[string]any{"file": "net/http/client.go"}},
		{tool: "go_package_api", what: "package API of net/http", args: map[string]any{"packagePaths": []string{"net/http"}, "limit": 10000}, peer: map[string]any{"packagePaths": []string{"net/http"}}},
		{tool: "go_symbol_references", what: "references of net/http.Handler, every one listed",
			args:  map[string]any{"file": "net/http/server.go", "symbol": "Handler", "includeDeclaration": true, "limit": 1000},
			peer:  map[string]any{"file": "net/http/server.go", "symbol": "Handler"},
			count: refCount, unit: "references"},
		{tool: "go_rename_symbol", what: "rename canonicalMIMEHeaderKey → canonicalKey (net/textproto, 2 files)",
			args: map[string]any{"file": "net/textproto/reader.go", "symbol": "canonicalMIMEHeaderKey", "new_name": "canonicalKey"},
			peer: map[string]any{"file": "net/textproto/reader.go", "symbol": "canonicalMIMEHeaderKey", "new_name": "canonicalKey"}},
		{tool: "go_diagnostics", what: "diagnostics of net/http/server.go", args: map[string]any{"files": []string{"net/http/server.go"}}, peer: map[string]any{"files": []string{"net/http/server.go"}},
			count: diagnosticCount, unit: "diagnostics"},
		{tool: "go_describe", what: "describe (*Server).Serve", args: map[string]any{"file": "net/http/server.go", "symbol": "(*Server).Serve"}},
		{tool: "go_definition", what: "definition of the Serve called in (*Server).ListenAndServe", args: map[string]any{"file": "net/http/server.go"},
			prepare: at("return srv.Serve(l)", len("return srv."), "Serve")},
		{tool: "go_implementations", what: "implementations of net/http.Handler", args: map[string]any{"file": "net/http/server.go", "symbol": "Handler"}},
		{tool: "go_symbols", what: "outline of net/http/server.go", args: map[string]any{"file": "net/http/server.go"}},
		{tool: "go_complete", what: `completion after "w." in a handler being written (snippet)`, args: map[string]any{"text": completeSnippet, "line": 6, "column": 4}},
		{tool: "go_signature", what: "signature inside a fmt.Fprintf call of net/http/fs.go", args: map[string]any{"file": "net/http/fs.go"},
			prepare: at(`fmt.Fprintf(w, "<a href=\"%s\">%s</a>\n", url.String()`, len(`fmt.Fprintf(w, "<a href=\"%s\">%s</a>\n", `), "")},
		{tool: "go_tokens", what: "semantic tokens of the first 40 lines of (*Server).Serve", args: map[string]any{"file": "net/http/server.go"},
			prepare: linesFrom("func (s *Server) Serve(l net.Listener) error {", 40)},
		{tool: "go_format", what: "format a 6-line snippet", args: map[string]any{"text": formatSnippet}},
		{tool: "go_organize_imports", what: "organize the imports of a 7-line snippet", args: map[string]any{"text": importsSnippet}},
		{tool: "go_code_actions", what: "code actions at the call srv.Serve(l)", args: map[string]any{"file": "net/http/server.go"},
			prepare: at("return srv.Serve(l)", len("return srv."), "Serve")},
		{tool: "go_call_hierarchy", what: "callers of (*Server).Serve", args: map[string]any{"file": "net/http/server.go", "symbol": "(*Server).Serve"}},
		{tool: "go_type_hierarchy", what: "type hierarchy of net/http.Handler", args: map[string]any{"file": "net/http/server.go", "symbol": "Handler"}},
		closeQuestion("net/textproto/textproto.go"),
		{tool: "go_source", what: "source of (*Server).Serve", args: map[string]any{"file": "net/http/server.go", "symbol": "(*Server).Serve"}},
		{tool: "go_package_graph", what: "importers of net/textproto", args: map[string]any{"packagePaths": []string{"net/textproto"}}},
		{tool: "go_vulncheck", what: "vulnerabilities of net/textproto", args: map[string]any{"pattern": "./net/textproto"}, peer: map[string]any{"pattern": "./net/textproto"}},
	}
	return newQuestionSet(qs, nil)
}

func newQuestionSet(qs, extra []toolQuestion) questionSet {
	set := questionSet{byTool: make(map[string]toolQuestion), extra: extra}
	for _, q := range qs {
		if _, dup := set.byTool[q.tool]; dup {
			panic("two questions for " + q.tool)
		}
		set.byTool[q.tool] = q
	}
	return set
}

// tools are the tools the set has a question for, sorted.
func (set questionSet) tools() []string { return slices.Sorted(maps.Keys(set.byTool)) }

// ready returns a copy of q with its arguments complete for ws.
func (q toolQuestion) ready(ws *workspace) (toolQuestion, error) {
	q.args = maps.Clone(q.args)
	if q.peer != nil {
		q.peer = maps.Clone(q.peer)
	}
	if q.prepare != nil {
		if err := q.prepare(ws, &q); err != nil {
			return q, fmt.Errorf("%s question %q: %w", q.tool, q.what, err)
		}
	}
	if q.peer != nil {
		if f, ok := q.peer["file"].(string); ok {
			q.peer["file"] = absPath(ws, f)
		}
		if fs, ok := q.peer["files"].([]string); ok {
			abs := make([]string, len(fs))
			for i, f := range fs {
				abs[i] = filepath.Join(ws.root, filepath.FromSlash(f))
			}
			q.peer["files"] = abs
		}
	}
	return q, nil
}
