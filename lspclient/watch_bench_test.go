package lspclient

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// BenchmarkPollBarrier measures what each call pays under --watch poll
// when nothing changed: one scan of the tree (an lstat per directory and
// per Go file, no directory read while directory times hold). And what
// the poller costs idle: CPU over two seconds with no call.
//
//	go test -run '^$' -bench BenchmarkPollBarrier -benchtime 50x ./lspclient/
func BenchmarkPollBarrier(b *testing.B) {
	goroot := filepath.Join(runtime.GOROOT(), "src")
	tree := b.TempDir()
	makeTree(b, tree, 1000, 10) // 10,000 files in 1,000 directories
	for _, bc := range []struct{ name, root string }{
		{"GOROOT_src", goroot},
		{"tree_10k_files", tree},
	} {
		b.Run(bc.name, func(b *testing.B) {
			start := time.Now()
			p := newPoller(bc.root)
			defer p.close()
			baseline := time.Since(start)
			files, dirs := 0, len(p.state)
			for _, st := range p.state {
				files += len(st.files)
			}
			p.drain() // settles the directories read as racy in the baseline
			b.ResetTimer()
			for b.Loop() {
				p.drain()
			}
			b.StopTimer()
			b.ReportMetric(float64(files), "files")
			b.ReportMetric(float64(dirs), "dirs")
			b.ReportMetric(float64(baseline.Milliseconds()), "baseline-ms")
			cpu0 := cpuTime()
			idle := time.NewTimer(2 * time.Second)
			<-idle.C // measuring two idle seconds, not waiting for an event
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/2, "idle-cpu-us/s")
		})
	}
}

// makeTree writes dirs directories of perDir Go files under root, dated
// an hour ago as a checkout's files are by the time calls come (files
// changed within the last two seconds are hashed at each scan).
func makeTree(tb testing.TB, root string, dirs, perDir int) {
	tb.Helper()
	old := time.Now().Add(-time.Hour)
	defer func() {
		// Files first: dating a directory's entries changes no time of it.
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				err = os.Chtimes(p, old, old)
			}
			return err
		})
		if err == nil {
			err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
				if err == nil && d.IsDir() {
					err = os.Chtimes(p, old, old)
				}
				return err
			})
		}
		if err != nil {
			tb.Fatal(err)
		}
	}()
	for d := range dirs {
		dir := filepath.Join(root, fmt.Sprintf("d%02d", d/100), fmt.Sprintf("p%04d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
		for f := range perDir {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", f)), []byte("package p\n"), 0o644); err != nil {
				tb.Fatal(err)
			}
		}
	}
}
