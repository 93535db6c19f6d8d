package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// defaultTools is the number of tools goplsmcp lists by default (gopls
// mcp's optional tools, offered with --tools, left out).
const defaultTools = 23

// tokens measures what a model reads: the tool list (once, on the
// fixture), and every tool's answer, both channels, next to gopls mcp's
// for the same question.
func (b *bench) tokens(ctx context.Context, ws *workspace, s *servers) error {
	if ws.fixture {
		if err := b.toolsList(s); err != nil {
			return err
		}
	}
	return b.answers(ctx, ws, s)
}

// toolsList sizes the two servers' tools/list results.
func (b *bench) toolsList(s *servers) error {
	t := b.table(6, "Tokens",
		fmt.Sprintf("Bytes a model reads (about four per token). tools/list is the whole JSON result at protocol %s (goplsmcp's includes titles, annotations and output schemas, which gopls mcp's lacks). Target: tools/list ≤ 32 KiB for all %d default tools. The answers follow, in the next table.", protocolVersion, defaultTools),
		"what", "goplsmcp", "gopls mcp", "ratio", "met")

	ourTools, peerTools := len(s.ours.tools), len(s.peer.tools)
	listBytes := len(s.ours.toolsList)
	const listLimit = 32 << 10
	perTool := float64(listBytes) / float64(ourTools)
	t.add(fmt.Sprintf("tools/list (goplsmcp %d tools, gopls mcp %d)", ourTools, peerTools), kib(listBytes), kib(len(s.peer.toolsList)), ratio(float64(listBytes), float64(len(s.peer.toolsList))), check(listBytes <= listLimit))
	// Clients validate structured results against outputSchema; most put
	// only the rest of each tool (name, title, description, input schema)
	// into the model's context.
	if withoutOut, err := withoutOutputSchemas(s.ours.toolsList); err == nil {
		t.add("tools/list without output schemas (what most clients show the model)", kib(withoutOut), kib(len(s.peer.toolsList)), ratio(float64(withoutOut), float64(len(s.peer.toolsList))), "—")
	}
	if eager, err := eagerBytes(s.ours.toolsList); err == nil {
		peerEager, _ := eagerBytes(s.peer.toolsList)
		const eagerLimit = 16 << 10
		t.add("name, description and input schema, compact (what eager clients send with every request; target ≤ 16 KiB)", kib(eager), kib(peerEager), ratio(float64(eager), float64(peerEager)), check(eager <= eagerLimit))
		b.rep.judge(fmt.Sprintf("6. eager tool definitions ≤ 16 KiB (%d tools listed)", ourTools), kib(eager), eager <= eagerLimit)
	}
	if ourTools < defaultTools {
		t.note("goplsmcp lists %d of the %d default tools in this build; at its current %.0f bytes per tool, %d would take about %s.", ourTools, defaultTools, perTool, defaultTools, kib(int(perTool*defaultTools)))
	}
	b.rep.judge(fmt.Sprintf("6. tools/list ≤ 32 KiB (%d tools listed)", ourTools), fmt.Sprintf("%s; ~%s at %d tools", kib(listBytes), kib(int(perTool*defaultTools)), defaultTools), listBytes <= listLimit && perTool*defaultTools <= listLimit)

	return nil
}

// Targets of the answers in table 6: the structured content,
// compact, within 1.3× the text it restates; and both channels within
// 0.6× gopls mcp's text for the same facts.
const (
	structuredLimit = 1.3
	peerLimit       = 0.6
)

// answers asks every tool goplsmcp lists its question on ws, and sizes
// both channels of the answer against each other and against gopls mcp's
// text where gopls mcp has the tool.
func (b *bench) answers(ctx context.Context, ws *workspace, s *servers) error {
	t := b.table(6, "Tokens: every tool's answer, both channels",
		fmt.Sprintf("One realistic question to every tool goplsmcp lists, on the fixture and on GOROOT/src. text is the answer's text content, JSON its structuredContent, compact (Claude Code and Codex give the model the latter, Gemini CLI the former); gopls mcp's text is its answer to the same question, where it has the tool, asked for the same facts (every reference, up to 100 search results, every declaration of a package). Targets: JSON ≤ %g× the text; text and JSON ≤ %g× gopls mcp's text. A ratio that misses is in bold.", structuredLimit, peerLimit),
		"workspace", "tool", "question", "text", "JSON", "JSON / text", "gopls mcp text", "text / gopls mcp", "JSON / gopls mcp", "met")
	set, other, otherName := fixtureQuestions(), gorootQuestions(), "GOROOT/src"
	if !ws.fixture {
		set, other, otherName = other, set, "the fixture"
	}
	timeout := b.callTimeout(ws.root)
	var (
		structMisses, peerMisses []string
		structWorst, peerWorst   struct {
			r    float64
			tool string
		}
		asked, compared int
		missing         []string
	)
	// Every tool the build lists has a question on both workspaces, even
	// the one not measured in this run.
	for _, tool := range s.ours.toolNames {
		if _, ok := other.byTool[tool]; !ok {
			missing = append(missing, tool+" on "+otherName)
		}
	}
	var todo []toolQuestion
	for _, tool := range s.ours.toolNames {
		q, ok := set.byTool[tool]
		if !ok {
			missing = append(missing, tool+" on "+ws.name)
			t.add(ws.name, tool, "—", "—", "—", "—", "—", "—", "—", "not measured: no bench question yet (questions.go)")
			continue
		}
		todo = append(todo, q)
	}
	for _, q := range set.extra {
		if s.ours.has(q.tool) {
			todo = append(todo, q)
		}
	}
	for _, q := range todo {
		q, err := q.ready(ws)
		if err != nil {
			return err
		}
		for _, c := range q.setup {
			if _, err := callWithin(ctx, timeout, s.ours, c.tool, c.args); err != nil {
				return fmt.Errorf("%s: setting up %q: %w", q.tool, q.what, err)
			}
		}
		o, err := callWithin(ctx, timeout, s.ours, q.tool, q.args)
		if err != nil {
			return fmt.Errorf("%s: %q: %w", q.tool, q.what, err)
		}
		for _, c := range q.cleanup {
			if _, err := callWithin(ctx, timeout, s.ours, c.tool, c.args); err != nil {
				return fmt.Errorf("%s: cleaning up after %q: %w", q.tool, q.what, err)
			}
		}
		b.saveAnswer("goplsmcp", ws.name, q.tool+" "+q.what, o.text)
		b.saveAnswer("goplsmcp-json", ws.name, q.tool+" "+q.what, string(o.structured))
		if o.isError || len(o.structured) == 0 || o.text == "" {
			msg := fmt.Sprintf("error answer: %q", truncate(o.text, 120))
			if !o.isError {
				msg = fmt.Sprintf("an answer without both channels (%d bytes of text, %d of JSON)", len(o.text), len(o.structured))
			}
			t.add(ws.name, q.tool, q.what, "—", "—", "—", "—", "—", "—", "**"+msg+"**")
			b.rep.judge(fmt.Sprintf("6. %s on %s: an answer", q.tool, ws.name), msg, false)
			continue
		}
		asked++
		text, js := len(o.text), len(o.structured)
		rs := float64(js) / float64(text)
		met := rs <= structuredLimit
		if !q.notSameFacts {
			if rs > structWorst.r {
				structWorst.r, structWorst.tool = rs, q.tool
			}
			if rs > structuredLimit {
				structMisses = append(structMisses, fmt.Sprintf("%s %s", q.tool, ratio(float64(js), float64(text))))
			}
		}
		peerText, rText, rJSON := "—", "—", "—"
		if q.peer != nil && s.peer.has(q.tool) {
			p, err := callWithin(ctx, timeout, s.peer, q.tool, q.peer)
			if err != nil {
				return fmt.Errorf("gopls mcp %s: %q: %w", q.tool, q.what, err)
			}
			b.saveAnswer("gopls-mcp", ws.name, q.tool+" "+q.what, p.text)
			same, agree := true, ""
			if q.count != nil {
				on, ok1 := q.count(o, true)
				pn, ok2 := q.count(p, false)
				same = ok1 && ok2 && on == pn
				if !same {
					agree = fmt.Sprintf(" (%d vs %d %s **differ**)", on, pn, q.unit)
				}
			}
			switch {
			case p.isError:
				peerText = "error: " + truncate(p.text, 80)
			case !same:
				peerText = kib(len(p.text)) + agree
			default:
				peerText = kib(len(p.text))
				pt := float64(len(p.text))
				rt, rj := float64(text)/pt, float64(js)/pt
				rText, rJSON = bold(ratio(float64(text), pt), rt > peerLimit), bold(ratio(float64(js), pt), rj > peerLimit)
				if q.notSameFacts {
					break
				}
				compared++
				met = met && rt <= peerLimit && rj <= peerLimit
				if w := max(rt, rj); w > peerWorst.r {
					peerWorst.r, peerWorst.tool = w, q.tool
				}
				if rt > peerLimit || rj > peerLimit {
					peerMisses = append(peerMisses, fmt.Sprintf("%s text %s, JSON %s", q.tool, ratio(float64(text), pt), ratio(float64(js), pt)))
				}
			}
		}
		verdict := check(met)
		if q.notSameFacts {
			verdict = "—"
		}
		t.add(ws.name, q.tool, q.what, kib(text), kib(js), bold(ratio(float64(js), float64(text)), rs > structuredLimit), peerText, rText, rJSON, verdict)
	}
	if len(missing) > 0 {
		// A new tool is measured once it has questions; until then the
		// report says so rather than failing, since a tool's own tests
		// and its catalogue samples already check its answers.
		b.rep.unavailable("6. every tool listed has a question on both workspaces", "not measured yet: "+strings.Join(missing, ", ")+" (add questions to questions.go)")
	}
	summary := func(n int, worst struct {
		r    float64
		tool string
	}, misses []string) string {
		m := fmt.Sprintf("%d answers, largest %s (%s)", n, ratio(worst.r, 1), worst.tool)
		if len(misses) > 0 {
			m += "; over: " + strings.Join(misses, "; ")
		}
		return m
	}
	b.rep.judge(fmt.Sprintf("6. every tool's JSON ≤ %g× its text, on %s", structuredLimit, ws.name), summary(asked, structWorst, structMisses), len(structMisses) == 0 && asked > 0)
	if compared > 0 {
		b.rep.judge(fmt.Sprintf("6. text and JSON ≤ %g× gopls mcp's text for the same facts, on %s", peerLimit, ws.name), summary(compared, peerWorst, peerMisses), len(peerMisses) == 0)
	}
	return nil
}

// bold marks s when a target is missed.
func bold(s string, missed bool) string {
	if missed {
		return "**" + s + "**"
	}
	return s
}

// withoutOutputSchemas returns the size of a tools/list result with every
// tool's outputSchema left out.
func withoutOutputSchemas(raw json.RawMessage) (int, error) {
	var list struct {
		Tools []map[string]json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return 0, err
	}
	for _, t := range list.Tools {
		delete(t, "outputSchema")
	}
	data, err := json.Marshal(list)
	return len(data), err
}

// eagerBytes sizes what a client that sends every tool definition with
// every request (Gemini CLI, Cursor, VS Code) sends: each tool's name,
// description and input schema, as compact JSON.
func eagerBytes(raw json.RawMessage) (int, error) {
	var list struct {
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return 0, err
	}
	// json.Marshal compacts each RawMessage as it writes it.
	data, err := json.Marshal(list.Tools)
	return len(data), err
}
