package fixtureguard

import (
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Run runs the tests of m and returns the exit code for os.Exit: m's, or
// 1 when anything under dir changed during the run — a file added,
// removed, or changed in content or mode, or a link retargeted. Paths in
// except (relative to dir, slash-separated) are left out, for fixtures a
// flag asks to rewrite, such as golden files under -update.
func Run(m *testing.M, dir string, except ...string) int {
	before, err := Snapshot(dir, except...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fixtureguard: %v\n", err)
		return 1
	}
	code := m.Run()
	after, err := Snapshot(dir, except...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fixtureguard: %v\n", err)
		return 1
	}
	if changes := Diff(before, after); len(changes) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: the tests changed the fixtures in %s; tests must copy fixtures before using them, and no tool may write:\n", dir)
		for _, c := range changes {
			fmt.Fprintf(os.Stderr, "\t%s\n", c)
		}
		return 1
	}
	return code
}

// Snapshot records every entry under dir: a file's mode and content hash,
// a directory's mode, a link's target.
func Snapshot(dir string, except ...string) (map[string]string, error) {
	state := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if slices.Contains(except, rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			state[rel] = "link to " + target
		case fi.IsDir():
			state[rel] = fmt.Sprintf("directory %v", fi.Mode())
		default:
			sum, err := hashFile(path)
			if err != nil {
				return err
			}
			state[rel] = fmt.Sprintf("file %v %x", fi.Mode(), sum)
		}
		return nil
	})
	return state, err
}

func hashFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// Diff describes how after differs from before, one line per path, in
// path order.
func Diff(before, after map[string]string) []string {
	var out []string
	for p, b := range before {
		a, ok := after[p]
		switch {
		case !ok:
			out = append(out, p+": removed")
		case a != b:
			out = append(out, fmt.Sprintf("%s: changed (%s, was %s)", p, a, b))
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			out = append(out, p+": added")
		}
	}
	slices.Sort(out)
	return out
}
