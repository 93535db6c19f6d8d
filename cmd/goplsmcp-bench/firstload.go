package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The large module of the first-answer measurement: golang.org/x/tools as
// goplsmcp's go.mod requires it (1,271 Go files), read from the module
// cache that built goplsmcp and copied so that it is a workspace of its
// own. Offline, its requirements that the module cache lacks leave some
// imports unresolved, alike for both servers.
const (
	firstLoadModule = "golang.org/x/tools"
	firstLoadFile   = "go/ast/inspector/inspector.go"
	firstLoadSymbol = "Inspector"
)

// firstLoad times, for goplsmcp and gopls mcp, the way from starting the
// process on a large module with an empty gopls cache (a GOPLSCACHE of its
// own, new for each start) to the first answer that lists references of
// the symbol: the case of an agent's first question on a big repository,
// which must wait for the load and not fail. Starts alternate.
func (b *bench) firstLoad(ctx context.Context) error {
	if b.plan.firstLoadN == 0 {
		return nil
	}
	t := b.table(9, "First answer on a large module, empty gopls cache",
		fmt.Sprintf("From starting the server process on %s (copied from the module cache, %s) with a new, empty gopls cache to the first answer listing the references of %s.%s. Starts alternate between the two servers; goplsmcp runs with its default --timeout (30 s) and --load-timeout (10 min). Target: goplsmcp within 10 %% of gopls mcp, and no failure.", firstLoadModule, firstLoadFile, filepathDir(firstLoadFile), firstLoadSymbol),
		"workspace", "question", "runs", "goplsmcp p50", "gopls mcp p50", "ratio", "goplsmcp min–max", "gopls mcp min–max", "answer", "met")
	root, version, err := b.firstLoadWorkspace(ctx)
	if err != nil {
		return err
	}
	name := firstLoadModule + "@" + version
	b.logf("first answer with an empty gopls cache on %s (%d runs each)", name, b.plan.firstLoadN)
	ws := &workspace{name: name, root: root, refs: symbolAt{file: firstLoadFile, symbol: firstLoadSymbol}}
	var ours, peer samples
	var oursN, peerN int
	for i := 0; i < b.plan.firstLoadN; i++ {
		for k := range 2 {
			isOurs := (i+k)%2 == 0
			side := "gopls-mcp"
			if isOurs {
				side = "goplsmcp"
			}
			cache := filepath.Join(b.tmp, "first-load-cache", fmt.Sprintf("%s-%d", side, i))
			if err := os.MkdirAll(cache, 0o755); err != nil {
				return err
			}
			d, n, err := b.startOnce(ctx, ws, isOurs, 1, b.plan.coldGorootTimeout, append(b.envFor(side), "GOPLSCACHE="+cache))
			if err != nil {
				return err
			}
			os.RemoveAll(cache)
			b.logf("  %s: %s, %d references", side, d.Round(time.Millisecond), n)
			if isOurs {
				ours, oursN = append(ours, d), n
			} else {
				peer, peerN = append(peer, d), n
			}
		}
	}
	r := float64(ours.p50()) / float64(peer.p50())
	same := oursN == peerN
	t.add(name, "references of "+firstLoadSymbol, fmt.Sprint(b.plan.firstLoadN), secs(ours.p50()), secs(peer.p50()), ratio(float64(ours.p50()), float64(peer.p50())),
		secs(ours.pct(0))+" – "+secs(ours.pct(100)), secs(peer.pct(0))+" – "+secs(peer.pct(100)), fmt.Sprintf("%d vs %d references", oursN, peerN), check(r <= 1.10 && same))
	b.rep.judge("9. first answer on "+name+" with an empty gopls cache: within 10 % of gopls mcp, the same references",
		fmt.Sprintf("%s (%s vs %s; %d vs %d references)", ratio(float64(ours.p50()), float64(peer.p50())), secs(ours.p50()), secs(peer.p50()), oursN, peerN), r <= 1.10 && same)
	return nil
}

func filepathDir(p string) string { return filepath.Base(filepath.Dir(p)) }

// firstLoadWorkspace copies the large module out of the module cache into
// the run's temporary directory, writable, and returns it and its version.
func (b *bench) firstLoadWorkspace(ctx context.Context) (string, string, error) {
	out, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}} {{.Version}}", firstLoadModule).Output()
	if err != nil {
		return "", "", fmt.Errorf("finding %s in the module cache (run from goplsmcp's module): %w", firstLoadModule, err)
	}
	dir, version, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if dir == "" {
		return "", "", fmt.Errorf("%s is not in the module cache: run go mod download %s", firstLoadModule, firstLoadModule)
	}
	root := filepath.Join(b.tmp, "first-load", "tools")
	if err := os.CopyFS(root, os.DirFS(dir)); err != nil {
		return "", "", fmt.Errorf("copying %s: %w", dir, err)
	}
	// The module cache's files are read-only; the copy is the workspace.
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if d.IsDir() {
			mode = 0o755
		}
		return os.Chmod(p, mode)
	})
	return root, version, err
}
