package lspclient

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"runtime"
	"strings"
)

// The Windows forms of paths and file URIs, as pure functions of strings,
// so that their rules are tested on every system (winpath_test.go). On
// Windows, FileURI, URIPath and Within use them.
//
// Windows paths: a drive (C:) or a UNC share (\\server\share), then the
// path; both \ and / separate; letters compare without regard to case, as
// NTFS names do by default. URIs: file:///C:/dir/file.go, the drive
// letter upper-case, as gopls writes them; file://server/share/... for
// a share.

// WindowsClean returns the clean form of a Windows path: \ separators, an
// upper-case drive letter, no . or .. elements (.. stops at the volume),
// no trailing separator but the root's. It returns "" for a path that is
// not absolute (no drive and root, nor a share).
func WindowsClean(p string) string {
	p = strings.ReplaceAll(p, "/", `\`)
	var vol, rest string
	switch {
	case len(p) >= 3 && isLetter(p[0]) && p[1] == ':' && p[2] == '\\':
		vol, rest = strings.ToUpper(p[:1])+":", p[2:]
	case strings.HasPrefix(p, `\\`) && !strings.HasPrefix(p, `\\?\`) && !strings.HasPrefix(p, `\\.\`):
		parts := strings.SplitN(p[2:], `\`, 3)
		if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
			return ""
		}
		vol = `\\` + parts[0] + `\` + parts[1]
		rest = `\`
		if len(parts) == 3 {
			rest += parts[2]
		}
	default:
		return ""
	}
	clean := path.Clean(strings.ReplaceAll(rest, `\`, "/"))
	return vol + strings.ReplaceAll(clean, "/", `\`)
}

// WindowsWithin reports whether path is root or below it, after cleaning
// both, letters compared without regard to case.
func WindowsWithin(root, p string) bool {
	root, p = WindowsClean(root), WindowsClean(p)
	if root == "" || p == "" {
		return false
	}
	if strings.EqualFold(root, p) {
		return true
	}
	prefix := root
	if !strings.HasSuffix(prefix, `\`) {
		prefix += `\`
	}
	return len(p) > len(prefix) && strings.EqualFold(p[:len(prefix)], prefix)
}

// WindowsFileURI returns the file URI of an absolute Windows path, or ""
// if it is not one.
func WindowsFileURI(p string) string {
	p = WindowsClean(p)
	if p == "" {
		return ""
	}
	if share, ok := strings.CutPrefix(p, `\\`); ok {
		host, rest, _ := strings.Cut(share, `\`)
		u := url.URL{Scheme: "file", Host: host, Path: "/" + strings.ReplaceAll(rest, `\`, "/")}
		return u.String()
	}
	u := url.URL{Scheme: "file", Path: "/" + strings.ReplaceAll(p, `\`, "/")}
	return u.String()
}

// WindowsURIPath returns the Windows path a file URI names: a drive path
// (file:///C:/x, file:///c%3A/x) or a share (file://server/share/x).
func WindowsURIPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("parsing URI: %w", err)
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("not a file URI: scheme %q", u.Scheme)
	}
	if strings.Contains(u.Path, `\`) {
		return "", errors.New("file URI holds a backslash")
	}
	var p string
	if u.Host != "" && !strings.EqualFold(u.Host, "localhost") {
		p = `\\` + u.Host + strings.ReplaceAll(u.Path, "/", `\`)
	} else {
		rest, ok := strings.CutPrefix(u.Path, "/")
		if !ok || len(rest) < 2 || !isLetter(rest[0]) || rest[1] != ':' {
			return "", errors.New("file URI names no drive")
		}
		if len(rest) == 2 {
			rest += "/"
		}
		p = rest
	}
	clean := WindowsClean(p)
	if clean == "" {
		return "", errors.New("file URI names no absolute path")
	}
	return clean, nil
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// Within reports whether path is root or below it, both absolute and
// clean: on Windows without regard to case, as its file systems compare
// names.
func Within(root, p string) bool {
	if runtime.GOOS == "windows" {
		return WindowsWithin(root, p)
	}
	return within(root, p)
}
