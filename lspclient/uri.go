package lspclient

import (
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
)

// FileURI returns the file:// URI of an absolute path, encoded the way
// gopls encodes it, so that URIs from both sides compare equal.
func FileURI(path string) string {
	if runtime.GOOS == "windows" {
		if uri := WindowsFileURI(path); uri != "" {
			return uri
		}
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	return u.String()
}

// URIPath returns the absolute path named by a file:// URI.
func URIPath(uri string) (string, error) {
	if runtime.GOOS == "windows" {
		return WindowsURIPath(uri)
	}
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("parsing URI: %w", err)
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("not a file URI: scheme %q", u.Scheme)
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("file URI names a host")
	}
	return filepath.FromSlash(u.Path), nil
}
