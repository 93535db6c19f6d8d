package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Codex keeps its MCP servers in one config.toml for all of the user's
// projects, and refuses to start when that file is not valid TOML: a
// snippet appended twice (a table defined twice) is enough. goplsmcp
// config codex --write therefore edits the file as text, changing only
// goplsmcp's entry, and puts the result in place only once the whole of it
// decodes to the old file's content with that entry set.

// tomlKV is one key of a Codex server entry: a string or a list of them.
type tomlKV struct {
	key   string
	value any // string or []string
}

// codexEntry is one [mcp_servers.NAME] table that goplsmcp writes.
type codexEntry struct {
	name string // a bare key, as Codex wants server names: [a-z0-9_-]
	kvs  []tomlKV
}

// codexOwnedKeys are the keys of an entry that goplsmcp sets: those that
// say how Codex reaches the server. Whatever else the user added to the
// entry (env, cwd, enabled, timeouts, tool lists) is kept, and so is an
// env_vars list of the user's: goplsmcp adds its own only to an entry
// without one.
var codexOwnedKeys = []string{"command", "args", "url", "bearer_token_env_var"}

// codexEnvVars are the variables of Codex's environment its entry passes
// on to goplsmcp. Codex gives a server only a few of its own (HOME, PATH,
// USER, LANG, TMPDIR, ...), so without these the go command would answer
// without the user's GOFLAGS, GOPRIVATE or GOWORK, and sessions would
// look for the shared daemons elsewhere than goplsmcp daemon list does. A
// variable not set is not passed.
var codexEnvVars = []string{
	"GOFLAGS", "GOWORK", "GOPRIVATE", "GONOPROXY", "GONOSUMDB", "GOPROXY", "GOTOOLCHAIN",
	"GOENV", "GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "GOOS", "GOARCH", "CGO_ENABLED",
	"XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR", "GOPLSMCP_RUNTIME_DIR",
}

// codexStdioEntry is the entry that starts the goplsmcp at exe: with no
// root, named goplsmcp and serving the directory Codex starts it in;
// with a root, named after it and serving it.
func codexStdioEntry(exe, root string) codexEntry {
	if root == "" {
		return codexEntry{name: "goplsmcp", kvs: []tomlKV{{"command", exe}, {"env_vars", codexEnvVars}}}
	}
	return codexEntry{name: codexName(root), kvs: []tomlKV{{"command", exe}, {"args", []string{"--root", root}}, {"env_vars", codexEnvVars}}}
}

// codexHTTPEntry is the entry that connects to a goplsmcp serving HTTP at
// url, the token taken from tokenVar.
func codexHTTPEntry(url string) codexEntry {
	return codexEntry{name: "goplsmcp", kvs: []tomlKV{{"url", url}, {"bearer_token_env_var", tokenVar}}}
}

// codexName is the server name of an entry for root: goplsmcp- and the
// root's last element, in the characters Codex allows, kept short since
// Codex names tools mcp__SERVER__TOOL within 64 characters.
func codexName(root string) string {
	var b strings.Builder
	dash := true // no leading dash, and none doubled
	for _, r := range strings.ToLower(filepath.Base(root)) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case !dash:
			b.WriteByte('-')
			dash = true
		}
	}
	base := strings.TrimRight(b.String(), "-")
	if len(base) > 20 {
		base = strings.TrimRight(base[:20], "-")
	}
	if base == "" {
		base = "root"
	}
	return "goplsmcp-" + base
}

// text is the entry as TOML, its lines ended by nl.
func (e codexEntry) text(nl string) string {
	return "[mcp_servers." + e.name + "]" + nl + e.keys(nl)
}

// keys is the entry's keys as TOML, its lines ended by nl.
func (e codexEntry) keys(nl string) string {
	var b strings.Builder
	for _, kv := range e.kvs {
		b.WriteString(kv.key + " = " + tomlValue(kv.value, nl) + nl)
	}
	return b.String()
}

// tomlValue writes a string or a list of strings as TOML; a long list
// over several lines.
func tomlValue(v any, nl string) string {
	switch v := v.(type) {
	case string:
		return tomlString(v)
	case []string:
		quoted := make([]string, len(v))
		for i, s := range v {
			quoted[i] = tomlString(s)
		}
		if one := "[" + strings.Join(quoted, ", ") + "]"; len(one) <= 72 {
			return one
		}
		var b strings.Builder
		b.WriteString("[" + nl)
		line := ""
		for _, q := range quoted {
			if line != "" && len(line)+len(q) > 70 {
				b.WriteString(line + nl)
				line = ""
			}
			if line == "" {
				line = "  "
			} else {
				line += " "
			}
			line += q + ","
		}
		b.WriteString(line + nl + "]")
		return b.String()
	}
	panic(fmt.Sprintf("tomlValue: %T", v))
}

// decoded is a value as the TOML decoder gives it back.
func decoded(v any) any {
	if list, ok := v.([]string); ok {
		out := make([]any, len(list))
		for i, s := range list {
			out[i] = s
		}
		return out
	}
	return v
}

// errCannotEdit refuses a file whose goplsmcp entry the merge cannot be
// sure to change alone.
var errCannotEdit = errors.New("goplsmcp cannot change its entry there without risk to the rest; nothing was written: add the entry goplsmcp config codex prints by hand")

// mergeCodexEntry returns old, a config.toml, with e set: the keys of
// codexOwnedKeys in an existing [mcp_servers.NAME] table replaced by e's,
// or the table appended at the end. Every other byte of old is kept. A
// file that is not valid TOML is refused, as is one whose result would not
// decode to old's content with e set.
func mergeCodexEntry(old []byte, e codexEntry) ([]byte, error) {
	before, err := decodeTOML(old)
	if err != nil {
		return nil, fmt.Errorf("it is not valid TOML (%v); goplsmcp leaves it as it is: mend it, then run again", err)
	}
	servers, _ := before["mcp_servers"].(map[string]any)
	if v, ok := before["mcp_servers"]; ok && servers == nil {
		return nil, fmt.Errorf("its mcp_servers is a %T, not a table; nothing was written", v)
	}
	existing, hasEntry := servers[e.name].(map[string]any)
	if _, ok := servers[e.name]; ok && existing == nil {
		return nil, fmt.Errorf("its mcp_servers.%s is not a table; nothing was written", e.name)
	}
	if hasEntry {
		if err := sameRoot(existing, e); err != nil {
			return nil, err
		}
		e = keepFlags(e, existing)
		if _, ok := existing["env_vars"]; ok {
			// The user's list stands.
			e.kvs = slices.DeleteFunc(slices.Clone(e.kvs), func(kv tomlKV) bool { return kv.key == "env_vars" })
		}
	}
	stmts, err := tomlStatements(old)
	if err != nil {
		return nil, errCannotEdit
	}
	nl := "\n"
	if bytes.Contains(old, []byte("\r\n")) {
		nl = "\r\n"
	}
	entry := []string{"mcp_servers", e.name}
	otherForm := fmt.Errorf("it defines mcp_servers.%s with dotted keys or an inline table, which goplsmcp does not edit; nothing was written: make it a [mcp_servers.%s] table, or remove it, then run again", e.name, e.name)
	main := -1 // the statement that is the entry's header
	subtables := false
	var drop []tomlStmt
	var table []string
	for i, s := range stmts {
		if s.header {
			table = s.path
			switch {
			case slices.Equal(s.path, entry) && s.array:
				return nil, fmt.Errorf("its mcp_servers.%s is an array of tables, not a server; nothing was written", e.name)
			case slices.Equal(s.path, entry):
				main = i
			case hasPrefix(s.path, entry):
				subtables = true
			}
			continue
		}
		if !hasPrefix(append(slices.Clip(table), s.path...), entry) {
			continue
		}
		if !hasPrefix(table, entry) {
			return nil, otherForm
		}
		if slices.Equal(table, entry) && len(s.path) == 1 && slices.Contains(codexOwnedKeys, s.path[0]) {
			drop = append(drop, s)
		}
	}
	if hasEntry && main < 0 && !subtables {
		return nil, otherForm
	}
	kvs := e.keys(nl)
	var out bytes.Buffer
	if main >= 0 {
		// The new keys stand where the first of the old ones stood (after
		// any comment above it), else just below the header.
		at := stmts[main].end
		if len(drop) > 0 {
			at = drop[0].start
		}
		out.Write(old[:at])
		if at > 0 && old[at-1] != '\n' {
			out.WriteString(nl)
		}
		out.WriteString(kvs)
		for _, d := range drop {
			if d.start > at {
				out.Write(old[at:d.start])
			}
			at = d.end
		}
		out.Write(old[at:])
	} else {
		out.Write(old)
		s := string(old)
		switch {
		case s == "", strings.HasSuffix(s, "\n\n"), strings.HasSuffix(s, "\n\r\n"):
		case strings.HasSuffix(s, "\n"):
			out.WriteString(nl)
		default:
			out.WriteString(nl + nl)
		}
		out.WriteString(e.text(nl))
	}

	// The proof: the result decodes to the old content with the entry's
	// owned keys replaced, and to nothing else.
	want, _ := decodeTOML(old)
	if want["mcp_servers"] == nil {
		want["mcp_servers"] = map[string]any{}
	}
	ws := want["mcp_servers"].(map[string]any)
	if ws[e.name] == nil {
		ws[e.name] = map[string]any{}
	}
	we := ws[e.name].(map[string]any)
	for _, k := range codexOwnedKeys {
		delete(we, k)
	}
	for _, kv := range e.kvs {
		we[kv.key] = decoded(kv.value)
	}
	got, err := decodeTOML(out.Bytes())
	if err != nil || !reflect.DeepEqual(got, want) {
		return nil, errCannotEdit
	}
	return out.Bytes(), nil
}

// keepFlags adds to e's args the flags the user gave the existing entry
// (--allow-write, --tools, ...), all but its --root: a new goplsmcp's
// entry still has them.
func keepFlags(e codexEntry, existing map[string]any) codexEntry {
	list, ok := existing["args"].([]any)
	if !ok || !slices.ContainsFunc(e.kvs, func(kv tomlKV) bool { return kv.key == "command" }) {
		return e
	}
	var kept []string
	for i := 0; i < len(list); i++ {
		a, ok := list[i].(string)
		if !ok {
			return e
		}
		switch {
		case a == "--root" || a == "-root":
			i++
		case strings.HasPrefix(a, "--root=") || strings.HasPrefix(a, "-root="):
		default:
			kept = append(kept, a)
		}
	}
	if len(kept) == 0 {
		return e
	}
	out := codexEntry{name: e.name}
	hasArgs := false
	for _, kv := range e.kvs {
		if kv.key == "args" {
			kv.value = append(slices.Clone(kv.value.([]string)), kept...)
			hasArgs = true
		}
		out.kvs = append(out.kvs, kv)
	}
	if !hasArgs {
		out.kvs = append(out.kvs, tomlKV{"args", kept})
	}
	return out
}

// sameRoot refuses to replace an entry for another root: two roots whose
// last elements are alike get the same name.
func sameRoot(existing map[string]any, e codexEntry) error {
	root := func(args any) string {
		list, _ := args.([]any)
		for i := 0; i+1 < len(list); i++ {
			if list[i] == "--root" {
				s, _ := list[i+1].(string)
				return s
			}
		}
		return ""
	}
	var ours string
	for _, kv := range e.kvs {
		if kv.key == "args" {
			ours = root(decoded(kv.value))
		}
	}
	if theirs := root(existing["args"]); ours != "" && theirs != "" && theirs != ours {
		return fmt.Errorf("its [mcp_servers.%s] serves %s, another root of the same name; nothing was written: rename that table, then run again", e.name, theirs)
	}
	return nil
}

func hasPrefix(path, prefix []string) bool {
	return len(path) >= len(prefix) && slices.Equal(path[:len(prefix)], prefix)
}

// decodeTOML decodes a whole TOML document.
func decodeTOML(data []byte) (map[string]any, error) {
	m := map[string]any{}
	if _, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}

// writeCodexEntry merges e into Codex's config.toml and says so on
// stdout: in $CODEX_HOME, or ~/.codex (made if missing). The file is
// replaced whole, by renaming over it a new file written beside it, with
// its mode: a failure at any point leaves the old file as it was. A
// symbolic link, or a file with other hard links, is refused rather than
// cut off from what it is linked to.
func writeCodexEntry(e codexEntry, stdout io.Writer) error {
	home := os.Getenv("CODEX_HOME")
	if home == "" {
		userHome, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("config codex --write: finding the home directory: %w", err)
		}
		home = filepath.Join(userHome, ".codex")
		if err := os.MkdirAll(home, 0o700); err != nil {
			return fmt.Errorf("config codex --write: %w", err)
		}
	}
	path := filepath.Join(home, "config.toml")
	fail := func(err error) error { return fmt.Errorf("config codex --write: %s: %w", path, err) }
	r, err := os.OpenRoot(home)
	if err != nil {
		return fmt.Errorf("config codex --write: CODEX_HOME %s: %w", home, unwrapPath(err))
	}
	defer r.Close()
	const name = "config.toml"
	before, err := r.Lstat(name)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fail(err)
	}
	var old []byte
	mode := fs.FileMode(0o600)
	if exists {
		switch {
		case before.Mode()&fs.ModeSymlink != 0:
			return fail(errors.New("it is a symbolic link, and goplsmcp does not write through one: add the entry goplsmcp config codex prints to the file it points to"))
		case !before.Mode().IsRegular():
			return fail(errors.New("it is not a regular file"))
		}
		if old, err = readCodexConfig(r, name, before); err != nil {
			return fail(err)
		}
		mode = before.Mode().Perm()
	}
	data, err := mergeCodexEntry(old, e)
	if err != nil {
		return fail(err)
	}
	if exists && bytes.Equal(data, old) {
		fmt.Fprintf(stdout, "%s: [mcp_servers.%s] unchanged\n", path, e.name)
		return nil
	}
	tmp, err := writeTemp(r, ".", name, data, mode, exists)
	if err != nil {
		return fail(err)
	}
	// The last look before the rename: the file must still be the one
	// read, with the bytes read (Codex itself may have written it since).
	now, err := r.Lstat(name)
	changed := exists && (err != nil || !os.SameFile(before, now)) || !exists && !errors.Is(err, fs.ErrNotExist)
	if !changed && exists {
		again, err := readCodexConfig(r, name, now)
		changed = err != nil || !bytes.Equal(again, old)
	}
	if changed {
		r.Remove(tmp)
		return fail(errors.New("it changed while goplsmcp wrote it; nothing was written; run again"))
	}
	if err := r.Rename(tmp, name); err != nil {
		r.Remove(tmp)
		return fail(err)
	}
	fmt.Fprintf(stdout, "%s: [mcp_servers.%s] written\n", path, e.name)
	return nil
}

// readCodexConfig reads name, whose Lstat is info, if the file opened is
// the one looked at and no other name shares it.
func readCodexConfig(r *os.Root, name string, info fs.FileInfo) ([]byte, error) {
	data, links, err := readChecked(r, name, info)
	switch {
	case errors.Is(err, errChangedWhileRead):
		return nil, errors.New("it changed while goplsmcp read it; nothing was written; run again")
	case err == nil && links > 1:
		return nil, fmt.Errorf("it has %d hard links, and replacing it would cut it off from the others; add the entry goplsmcp config codex prints by hand", links)
	}
	return data, err
}

// A tomlStmt is one statement of a TOML document: a table header, or a
// key and its value. start is the start of its first line; end is just
// after its last line's end (the newline included).
type tomlStmt struct {
	start, end int
	header     bool
	array      bool     // a [[header]]
	path       []string // the header's key, or the key of the key-value (relative to its table)
}

// tomlStatements splits a valid TOML document into its statements,
// skipping blank lines and comment lines. It knows just enough of TOML's
// grammar to find where each statement ends: strings of the four kinds,
// arrays and inline tables, across lines. The merge proves its result by
// decoding, so a document this reads wrong is refused, not damaged.
func tomlStatements(src []byte) ([]tomlStmt, error) {
	p := &tomlScanner{src: src}
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		p.i = 3
	}
	var stmts []tomlStmt
	for {
		p.skipSpace(true)
		if p.eof() {
			return stmts, nil
		}
		start := bytes.LastIndexByte(src[:p.i], '\n') + 1
		var s tomlStmt
		switch src[p.i] {
		case '#':
			p.skipComment()
			continue
		case '[':
			s.header = true
			p.i++
			if p.peek('[') {
				s.array = true
				p.i++
			}
			key, err := p.key()
			if err != nil {
				return nil, err
			}
			s.path = key
			if !p.peek(']') {
				return nil, p.errorf("want ]")
			}
			p.i++
			if s.array {
				if !p.peek(']') {
					return nil, p.errorf("want ]]")
				}
				p.i++
			}
		default:
			key, err := p.key()
			if err != nil {
				return nil, err
			}
			s.path = key
			p.skipSpace(false)
			if !p.peek('=') {
				return nil, p.errorf("want =")
			}
			p.i++
			p.skipSpace(false)
			if err := p.value(); err != nil {
				return nil, err
			}
		}
		if err := p.lineEnd(); err != nil {
			return nil, err
		}
		s.start, s.end = start, p.i
		stmts = append(stmts, s)
	}
}

// tomlScanner reads a TOML document at i.
type tomlScanner struct {
	src []byte
	i   int
}

func (p *tomlScanner) eof() bool { return p.i >= len(p.src) }

func (p *tomlScanner) peek(c byte) bool { return p.i < len(p.src) && p.src[p.i] == c }

func (p *tomlScanner) errorf(format string, args ...any) error {
	return fmt.Errorf("toml at byte %d: "+format, append([]any{p.i}, args...)...)
}

// skipSpace skips spaces and tabs, and with newlines, line ends too.
func (p *tomlScanner) skipSpace(newlines bool) {
	for !p.eof() {
		switch p.src[p.i] {
		case ' ', '\t':
		case '\r', '\n':
			if !newlines {
				return
			}
		default:
			return
		}
		p.i++
	}
}

func (p *tomlScanner) skipComment() {
	for !p.eof() && p.src[p.i] != '\n' {
		p.i++
	}
}

// skipBlank skips what may stand between the values of an array or an
// inline table: spaces, line ends and comments.
func (p *tomlScanner) skipBlank() {
	for {
		p.skipSpace(true)
		if !p.peek('#') {
			return
		}
		p.skipComment()
	}
}

// lineEnd reads the rest of a statement's line: spaces, a comment, the
// line end.
func (p *tomlScanner) lineEnd() error {
	p.skipSpace(false)
	if p.peek('#') {
		p.skipComment()
	}
	if p.peek('\r') {
		p.i++
	}
	if p.eof() {
		return nil
	}
	if !p.peek('\n') {
		return p.errorf("want the end of the line")
	}
	p.i++
	return nil
}

var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+`)

// key reads a key, dotted or not, its parts unquoted.
func (p *tomlScanner) key() ([]string, error) {
	var parts []string
	for {
		p.skipSpace(false)
		switch {
		case p.peek('"') || p.peek('\''):
			at := p.i
			if err := p.str(); err != nil {
				return nil, err
			}
			raw := string(p.src[at:p.i])
			if strings.HasPrefix(raw, `"""`) || strings.HasPrefix(raw, "'''") {
				return nil, p.errorf("a multi-line string as a key")
			}
			part := raw[1 : len(raw)-1]
			if raw[0] == '"' {
				var err error
				if part, err = strconv.Unquote(raw); err != nil {
					return nil, p.errorf("a key's escapes: %v", err)
				}
			}
			parts = append(parts, part)
		default:
			m := bareKey.Find(p.src[p.i:])
			if m == nil {
				return nil, p.errorf("want a key")
			}
			parts = append(parts, string(m))
			p.i += len(m)
		}
		p.skipSpace(false)
		if !p.peek('.') {
			return parts, nil
		}
		p.i++
	}
}

// str reads a string of any of the four kinds.
func (p *tomlScanner) str() error {
	q := p.src[p.i]
	triple := bytes.HasPrefix(p.src[p.i:], []byte{q, q, q})
	if triple {
		p.i += 3
	} else {
		p.i++
	}
	for !p.eof() {
		c := p.src[p.i]
		switch {
		case c == '\\' && q == '"':
			p.i += 2
			continue
		case c == '\n' && !triple:
			return p.errorf("a line end in a string")
		case c == q && !triple:
			p.i++
			return nil
		case c == q && bytes.HasPrefix(p.src[p.i:], []byte{q, q, q}):
			p.i += 3
			// Up to two quotes just before the closing three are content.
			for n := 0; n < 2 && p.peek(q); n++ {
				p.i++
			}
			return nil
		}
		p.i++
	}
	return p.errorf("an unterminated string")
}

var datePrefix = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)

// value reads a value: a string, an array, an inline table, or a scalar
// (number, boolean, date or time).
func (p *tomlScanner) value() error {
	if p.eof() {
		return p.errorf("want a value")
	}
	switch p.src[p.i] {
	case '"', '\'':
		return p.str()
	case '[':
		p.i++
		for {
			p.skipBlank()
			if p.peek(']') {
				p.i++
				return nil
			}
			if err := p.value(); err != nil {
				return err
			}
			p.skipBlank()
			if p.peek(',') {
				p.i++
				continue
			}
			if !p.peek(']') {
				return p.errorf("want , or ]")
			}
		}
	case '{':
		p.i++
		for {
			p.skipBlank()
			if p.peek('}') {
				p.i++
				return nil
			}
			if _, err := p.key(); err != nil {
				return err
			}
			p.skipSpace(false)
			if !p.peek('=') {
				return p.errorf("want =")
			}
			p.i++
			p.skipSpace(false)
			if err := p.value(); err != nil {
				return err
			}
			p.skipBlank()
			if p.peek(',') {
				p.i++
				continue
			}
			if !p.peek('}') {
				return p.errorf("want , or }")
			}
		}
	}
	start := p.i
	for !p.eof() && !bytes.ContainsRune([]byte(" \t\r\n,]}#"), rune(p.src[p.i])) {
		p.i++
		// A date and a time may be parted by a space.
		if p.peek(' ') && datePrefix.Match(p.src[start:p.i]) && p.i+1 < len(p.src) && p.src[p.i+1] >= '0' && p.src[p.i+1] <= '9' {
			p.i++
		}
	}
	if p.i == start {
		return p.errorf("want a value")
	}
	return nil
}
