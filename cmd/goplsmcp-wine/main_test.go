package main

import (
	"bytes"
	"debug/pe"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStandInDLL reads the stand-in bcryptprimitives.dll back as a PE
// file: a 64-bit DLL whose export table names ProcessPrng, forwarded to
// advapi32.SystemFunction036, as Windows's loader resolves it.
func TestStandInDLL(t *testing.T) {
	data := bcryptPrimitives()
	f, err := pe.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 || f.Characteristics&pe.IMAGE_FILE_DLL == 0 {
		t.Errorf("machine %#x, characteristics %#x: want an amd64 DLL", f.Machine, f.Characteristics)
	}
	opt, ok := f.OptionalHeader.(*pe.OptionalHeader64)
	if !ok {
		t.Fatalf("optional header %T, want PE32+", f.OptionalHeader)
	}
	if opt.AddressOfEntryPoint != 0 {
		t.Errorf("entry point %#x: a DLL of forwarders has no code", opt.AddressOfEntryPoint)
	}
	exp := opt.DataDirectory[pe.IMAGE_DIRECTORY_ENTRY_EXPORT]
	sec := f.Section(".edata")
	if sec == nil {
		t.Fatal("no .edata section")
	}
	body, err := sec.Data()
	if err != nil {
		t.Fatal(err)
	}
	at := func(rva uint32) []byte {
		t.Helper()
		if rva < sec.VirtualAddress || rva >= sec.VirtualAddress+uint32(len(body)) {
			t.Fatalf("address %#x is outside the export section", rva)
		}
		return body[rva-sec.VirtualAddress:]
	}
	str := func(rva uint32) string {
		b := at(rva)
		return string(b[:bytes.IndexByte(b, 0)])
	}
	u32 := func(rva uint32) uint32 { return binary.LittleEndian.Uint32(at(rva)) }
	dir := exp.VirtualAddress
	n, funcs, names, ords := u32(dir+24), u32(dir+28), u32(dir+32), u32(dir+36)
	got := map[string]string{"name": str(u32(dir + 12))}
	for i := range n {
		ord := binary.LittleEndian.Uint16(at(ords + 2*i))
		fn := u32(funcs + 4*uint32(ord))
		if fn < dir || fn >= dir+exp.Size {
			t.Errorf("export %d's address %#x is outside the export directory: not a forwarder", i, fn)
		}
		got[str(u32(names+4*i))] = str(fn)
	}
	want := map[string]string{"name": "bcryptprimitives.dll", "ProcessPrng": "advapi32.SystemFunction036"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("exports (-want +got):\n%s", d)
	}
	if len(data)%0x200 != 0 || uint32(len(data)) != sec.Offset+sec.Size {
		t.Errorf("%d bytes, section at %d of %d bytes: want the file to end with its one section", len(data), sec.Offset, sec.Size)
	}
}

// TestNormalize: the places the builds spell differently compare equal
// once normalized, however Windows spells them (quoted, with slashes, in
// another case, as URIs), and nothing else changes.
func TestNormalize(t *testing.T) {
	p := &prepared{prefix: "/w/bin/windows/prefix", win: "/w/bin/windows"}
	linux := &server{spell: func(path string) string { return path }, uri: func(path string) string { return "file://" + path }}
	win := &server{spell: p.winPath, uri: p.winURI}
	linux.names = []spelling{linux.place("/tmp/s/example", "$ROOT"), linux.place("/tmp/s", "$TMP"), linux.place("/goroot", "$GOROOT")}
	wd := "/w/bin/windows/prefix/drive_c/s"
	win.names = []spelling{win.place(wd+"/example", "$ROOT"), win.place(wd, "$TMP"), win.place("/w/bin/windows/go", "$GOROOT")}
	for _, c := range []struct{ linux, win string }{
		{"root: /tmp/s/example", `root: C:\s\example`},
		{"root: /tmp/s/example", `root: c:/S/Example`},
		{`file "/tmp/s/outside/a.go" is outside`, `file "C:\\s\\outside\\a.go" is outside`},
		{"file:///tmp/s/example/a.go:3:1", "file:///C:/s/example/a.go:3:1"},
		{"/goroot/src/fmt/print.go:12:6", `Z:\w\bin\windows\go\src\fmt\print.go:12:6`},
		{`a\b relative/path (kept)`, `a\b relative/path (kept)`},
	} {
		if got, want := win.normalize(c.win), linux.normalize(c.linux); got != want {
			t.Errorf("%q normalizes to %q, and %q to %q: want them equal", c.win, got, c.linux, want)
		}
	}
	if got := win.normalize(`..\outside`); got != `..\outside` {
		t.Errorf(`..\outside normalizes to %q: a path not under a place must stay as it is`, got)
	}
}

func TestWinPath(t *testing.T) {
	p := &prepared{prefix: "/w/prefix"}
	for path, want := range map[string]string{
		"/w/prefix/drive_c/s/example": `C:\s\example`,
		"/work/bin/windows":           `Z:\work\bin\windows`,
		"/w/prefix/drive_cx":          `Z:\w\prefix\drive_cx`,
	} {
		if got := p.winPath(path); got != want {
			t.Errorf("winPath(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestExeName(t *testing.T) {
	for cmdline, want := range map[string]string{
		"/work/bin/windows/goplsmcp.exe\x00--root\x00C:\\s\\example":         "goplsmcp.exe",
		"/usr/lib/wine/wine64\x00Z:\\work\\bin\\windows\\gopls.exe\x00serve": "gopls.exe",
		"C:\\windows\\system32\\services.exe":                                "services.exe",
		"Z:\\work\\bin\\windows\\go\\bin\\GO.EXE\x00list":                    "go.exe",
		"/usr/lib/wine/wineserver64\x00-p0":                                  "wineserver64",
	} {
		if got := exeName(strings.Split(cmdline, "\x00")); got != want {
			t.Errorf("exeName(%q) = %q, want %q", cmdline, got, want)
		}
	}
}

// TestWineProcesses: a process whose environment names the prefix and
// whose command line is a Windows program's is seen until it ends.
func TestWineProcesses(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc")
	}
	p := &prepared{prefix: t.TempDir()}
	// sh, under the name of a Windows program, waiting for its stdin.
	cmd := &exec.Cmd{Path: "/bin/sh", Args: []string{`Z:\w\bin\windows\gopls.exe`, "-c", "read line"}, Env: []string{"WINEPREFIX=" + p.prefix}}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	want := fmt.Sprintf(`%d Z:\w\bin\windows\gopls.exe -c read line`, cmd.Process.Pid)
	if got := p.wineProcesses(ours); !slices.Contains(got, want) {
		t.Errorf("wineProcesses(%q) = %q, want it to list %q", ours, got, want)
	}
	if got := p.wineProcesses([]string{"go.exe"}); len(got) != 0 {
		t.Errorf("wineProcesses(go.exe) = %q, want none", got)
	}
	if other := (&prepared{prefix: p.prefix + "x"}).wineProcesses(nil); len(other) != 0 {
		t.Errorf("another prefix's processes: %q, want none", other)
	}
	stdin.Close()
	cmd.Wait()
	if err := p.noneLeft(); err != nil {
		t.Error(err)
	}
}
