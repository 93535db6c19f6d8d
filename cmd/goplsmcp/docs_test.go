package main

import (
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// TestDocsLinks checks that every relative link in README.md and docs/
// names a file of the repository, and, with a #fragment into a markdown
// page, one of its headings: the user documentation is split over pages,
// and a page renamed or a heading reworded must not leave a reader at a
// dead link.
func TestDocsLinks(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob(filepath.Join(repo, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(repo, "README.md"))
	if len(pages) < 2 {
		t.Fatalf("found no pages under docs/: %v", pages)
	}
	checked := 0
	for _, page := range pages {
		body, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(repo, page)
		for _, target := range markdownLinks(string(body)) {
			u, err := url.Parse(target)
			if err != nil || u.Scheme != "" || u.Host != "" {
				continue // absolute links are not ours to check offline
			}
			dest := page
			if u.Path != "" {
				dest = filepath.Join(filepath.Dir(page), filepath.FromSlash(u.Path))
			}
			if !strings.HasPrefix(dest, repo+string(filepath.Separator)) {
				t.Errorf("%s: link %q leaves the repository", rel, target)
				continue
			}
			if _, err := os.Stat(dest); err != nil {
				t.Errorf("%s: link %q: no such file", rel, target)
				continue
			}
			checked++
			if u.Fragment == "" || !strings.HasSuffix(dest, ".md") {
				continue
			}
			text, err := os.ReadFile(dest)
			if err != nil {
				t.Fatal(err)
			}
			if !headingAnchors(string(text))[u.Fragment] {
				t.Errorf("%s: link %q: no heading with that anchor", rel, target)
			}
		}
	}
	if checked == 0 {
		t.Error("found no relative link to check")
	}
}

var linkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// markdownLinks returns the targets of the inline links in text, outside
// code blocks (where a "](x)" is code, not a link).
func markdownLinks(text string) []string {
	var links []string
	inCode := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
			links = append(links, m[1])
		}
	}
	return links
}

// headingAnchors returns the anchors a markdown renderer such as GitHub's
// gives the headings of text: lower case, punctuation dropped, spaces as
// hyphens, and -1, -2, ... after repeats.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	inCode := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inCode = !inCode
			continue
		}
		if inCode || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			seen[a]++
			a = a + "-" + string(rune('0'+n))
		} else {
			seen[a] = 1
		}
		anchors[a] = true
	}
	return anchors
}
