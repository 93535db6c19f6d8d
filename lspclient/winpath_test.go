package lspclient

import "testing"

// The Windows path and URI rules run on every system: they are pure
// functions of strings.

func TestWindowsClean(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`C:\work\proj`, `C:\work\proj`},
		{`c:/work/proj/`, `C:\work\proj`},
		{`C:\work\.\proj\..\proj\a.go`, `C:\work\proj\a.go`},
		{`C:\..\..\x`, `C:\x`},
		{`C:\`, `C:\`},
		{`C:/`, `C:\`},
		{`\\server\share\dir\f.go`, `\\server\share\dir\f.go`},
		{`//server/share/dir/../f.go`, `\\server\share\f.go`},
		{`\\server\share\..\..\other`, `\\server\share\other`},
		{`C:relative`, ``},
		{`\rooted\no\drive`, ``},
		{`relative\path`, ``},
		{`\\server`, ``},
		{`\\?\C:\x`, ``},
		{``, ``},
	} {
		if got := WindowsClean(tt.in); got != tt.want {
			t.Errorf("WindowsClean(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestWindowsWithin(t *testing.T) {
	for _, tt := range []struct {
		root, path string
		want       bool
	}{
		{`C:\work\proj`, `C:\work\proj`, true},
		{`C:\work\proj`, `C:\work\proj\a.go`, true},
		{`C:\work\proj`, `c:\WORK\Proj\sub\a.go`, true},
		{`C:\work\proj`, `C:/work/proj/sub/a.go`, true},
		{`c:/work/proj/`, `C:\work\proj\a.go`, true},
		{`C:\work\proj`, `C:\work\project\a.go`, false},
		{`C:\work\proj`, `C:\work\proj\..\secret.txt`, false},
		{`C:\work\proj`, `C:\work\proj\sub\..\..\secret.txt`, false},
		{`C:\work\proj`, `D:\work\proj\a.go`, false},
		{`C:\work\proj`, `\\server\share\work\proj\a.go`, false},
		{`C:\work\proj`, `work\proj\a.go`, false},
		{`C:\work\proj`, `C:work\proj\a.go`, false},
		{`C:\`, `C:\anything\a.go`, true},
		{`C:\`, `D:\a.go`, false},
		{`\\srv\share\proj`, `\\SRV\Share\proj\a.go`, true},
		{`\\srv\share\proj`, `\\srv\other\proj\a.go`, false},
	} {
		if got := WindowsWithin(tt.root, tt.path); got != tt.want {
			t.Errorf("WindowsWithin(%q, %q) = %v, want %v", tt.root, tt.path, got, tt.want)
		}
	}
}

func TestWindowsURI(t *testing.T) {
	for _, tt := range []struct{ path, uri string }{
		{`C:\work\proj\a.go`, "file:///C:/work/proj/a.go"},
		{`c:\work\my proj\a.go`, "file:///C:/work/my%20proj/a.go"},
		{`C:\`, "file:///C:/"},
		{`\\server\share\dir\a.go`, "file://server/share/dir/a.go"},
	} {
		if got := WindowsFileURI(tt.path); got != tt.uri {
			t.Errorf("WindowsFileURI(%q) = %q, want %q", tt.path, got, tt.uri)
		}
		back, err := WindowsURIPath(tt.uri)
		if want := WindowsClean(tt.path); err != nil || back != want {
			t.Errorf("WindowsURIPath(%q) = %q, %v; want %q", tt.uri, back, err, want)
		}
	}
	for _, tt := range []struct{ uri, want string }{
		{"file:///c%3A/work/a.go", `C:\work\a.go`},
		{"file:///c:/Work/A.go", `C:\Work\A.go`},
		{"file://localhost/C:/x.go", `C:\x.go`},
		{"file:///C:/work/../../secret", `C:\secret`},
	} {
		if got, err := WindowsURIPath(tt.uri); err != nil || got != tt.want {
			t.Errorf("WindowsURIPath(%q) = %q, %v; want %q", tt.uri, got, err, tt.want)
		}
	}
	for _, bad := range []string{"file:///work/a.go", "http:///C:/a.go", `file:///C:\a.go`, "file:///C", "file:relative"} {
		if got, err := WindowsURIPath(bad); err == nil {
			t.Errorf("WindowsURIPath(%q) = %q, want an error", bad, got)
		}
	}
	// Confinement of a URI: its path within the root, whatever the case.
	root := `C:\Users\dev\proj`
	for _, tt := range []struct {
		uri  string
		want bool
	}{
		{"file:///c:/users/DEV/proj/main.go", true},
		{"file:///C:/Users/dev/proj/../other/main.go", false},
		{"file:///C:/Users/dev/project/main.go", false},
		{"file:///D:/Users/dev/proj/main.go", false},
		{"file://evil/share/Users/dev/proj/main.go", false},
	} {
		p, err := WindowsURIPath(tt.uri)
		if got := err == nil && WindowsWithin(root, p); got != tt.want {
			t.Errorf("%s within %s = %v, want %v", tt.uri, root, got, tt.want)
		}
	}
}
