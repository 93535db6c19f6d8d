// Command goplsmcp-dist builds the release archives: for each GOOS/GOARCH
// named, goplsmcp and the gopls pinned in go.mod, side by side in
// goplsmcp-VERSION-GOOS-GOARCH.tar.gz (.zip for Windows), and SHA256SUMS.
//
// The archives are reproducible: the binaries are built without cgo, with
// -trimpath and no build ID; the archives hold them in a fixed order with a
// fixed time (the last commit's, or SOURCE_DATE_EPOCH), owner and mode.
//
//	go run ./cmd/goplsmcp-dist -o bin/dist linux/amd64 windows/amd64 ...
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

func main() {
	out := flag.String("o", "bin/dist", "output directory")
	flag.Parse()
	if err := run(*out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "goplsmcp-dist:", err)
		os.Exit(1)
	}
}

func run(out string, targets []string) error {
	if len(targets) == 0 {
		return fmt.Errorf("no targets (GOOS/GOARCH) given")
	}
	version := gitOutput("describe", "--tags", "--always", "--dirty")
	if version == "" {
		version = "dev"
	}
	stamp := sourceTime()
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	build, err := os.MkdirTemp("", "goplsmcp-dist")
	if err != nil {
		return err
	}
	defer os.RemoveAll(build)
	var sums []string
	for _, t := range targets {
		goos, goarch, ok := strings.Cut(t, "/")
		if !ok {
			return fmt.Errorf("target %q is not GOOS/GOARCH", t)
		}
		exe := ""
		if goos == "windows" {
			exe = ".exe"
		}
		dir := filepath.Join(build, goos+"-"+goarch)
		files := map[string]string{}
		for _, pkg := range []struct{ name, path string }{
			{"goplsmcp", "./cmd/goplsmcp"},
			{"gopls", "golang.org/x/tools/gopls"},
		} {
			bin := filepath.Join(dir, pkg.name+exe)
			ldflags := "-s -w -buildid="
			if pkg.name == "goplsmcp" {
				ldflags += " -X main.releaseVersion=" + version
			}
			cmd := exec.Command("go", "build", "-trimpath", "-ldflags="+ldflags, "-o", bin, pkg.path)
			cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0", "GOFLAGS=-mod=readonly")
			cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
			fmt.Fprintf(os.Stderr, "building %s for %s\n", pkg.name, t)
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("building %s for %s: %w", pkg.name, t, err)
			}
			files[pkg.name+exe] = bin
		}
		base := fmt.Sprintf("goplsmcp-%s-%s-%s", version, goos, goarch)
		var data []byte
		if goos == "windows" {
			base += ".zip"
			data, err = zipArchive(files, stamp)
		} else {
			base += ".tar.gz"
			data, err = tarArchive(files, stamp)
		}
		if err != nil {
			return fmt.Errorf("archiving %s: %w", t, err)
		}
		if err := os.WriteFile(filepath.Join(out, base), data, 0o644); err != nil {
			return err
		}
		sums = append(sums, fmt.Sprintf("%x  %s\n", sha256.Sum256(data), base))
	}
	// By archive name, as sha256sum lists them.
	sort.Slice(sums, func(i, j int) bool { return sums[i][66:] < sums[j][66:] })
	return os.WriteFile(filepath.Join(out, "SHA256SUMS"), []byte(strings.Join(sums, "")), 0o644)
}

// sourceTime is SOURCE_DATE_EPOCH, else the last commit's time, else a
// fixed date: never the time of the build.
func sourceTime() time.Time {
	for _, s := range []string{os.Getenv("SOURCE_DATE_EPOCH"), gitOutput("log", "-1", "--format=%ct")} {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.Unix(n, 0).UTC()
		}
	}
	return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
}

func gitOutput(args ...string) string {
	b, err := exec.Command("git", args...).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func sortedNames(files map[string]string) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func tarArchive(files map[string]string, stamp time.Time) ([]byte, error) {
	var buf bytes.Buffer
	gz, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	// No name and no time in the gzip header.
	gz.ModTime = time.Time{}
	tw := tar.NewWriter(gz)
	for _, name := range sortedNames(files) {
		data, err := os.ReadFile(files[name])
		if err != nil {
			return nil, err
		}
		hdr := &tar.Header{
			Name: name, Mode: 0o755, Size: int64(len(data)), ModTime: stamp,
			Typeflag: tar.TypeReg, Format: tar.FormatUSTAR,
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func zipArchive(files map[string]string, stamp time.Time) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range sortedNames(files) {
		f, err := os.Open(files[name])
		if err != nil {
			return nil, err
		}
		hdr := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: stamp}
		hdr.SetMode(0o755)
		w, err := zw.CreateHeader(hdr)
		if err == nil {
			_, err = io.Copy(w, f)
		}
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
