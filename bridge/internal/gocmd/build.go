package gocmd

import (
	"go/build"
	"regexp"
	"runtime"
	"strings"
	"sync"
)

// Build is the build configuration gopls type-checks with, as far as
// choosing files goes: GOOS, GOARCH and CGO_ENABLED from the environment
// gopls gives the go command, and the tags of its build flags and
// GOFLAGS. A file it excludes is in no package gopls knows, so
// syntax-based lookups (a symbol's declaration) leave it out too.
// The zero Build is build.Default.
type Build struct {
	// From, if set, says on first need what the configuration is made
	// from: the variables gopls adds to the go command's environment, the
	// GOFLAGS its go command has (the env setting's, else goplsmcp's
	// environment's, else the go env file's), and its build flags.
	From func() (env []string, goflags string, flags []string)

	once sync.Once
	ctx  build.Context
}

// context returns the build context; it is made once.
func (b *Build) context() *build.Context {
	b.once.Do(func() {
		ctx := build.Default
		var env, buildFlags []string
		var goflags string
		if b.From != nil {
			env, goflags, buildFlags = b.From()
		}
		if v := lookup(env, "GOOS"); v != "" {
			ctx.GOOS = v
		}
		if v := lookup(env, "GOARCH"); v != "" {
			ctx.GOARCH = v
		}
		if v := lookup(env, "CGO_ENABLED"); v != "" {
			ctx.CgoEnabled = v == "1"
		}
		flags := append(strings.Fields(goflags), buildFlags...)
		for i := 0; i < len(flags); i++ {
			f := strings.TrimPrefix(flags[i], "-")
			var tags string
			switch {
			case strings.HasPrefix(f, "-tags=") || strings.HasPrefix(f, "tags="):
				_, tags, _ = strings.Cut(f, "=")
			case (f == "tags" || f == "-tags") && i+1 < len(flags):
				i++
				tags = flags[i]
			default:
				continue
			}
			ctx.BuildTags = strings.FieldsFunc(tags, func(r rune) bool { return r == ',' || r == ' ' })
		}
		b.ctx = ctx
	})
	return &b.ctx
}

// Includes reports whether the file name in dir is part of the build
// gopls type-checks (its build constraints and file name allow it).
func (b *Build) Includes(dir, name string) bool {
	ok, err := b.context().MatchFile(dir, name)
	return err != nil || ok
}

// OtherBuildOf reports whether message, a diagnostic gopls published,
// comes from a build other than this one: gopls appends to the message of
// a diagnostic that its default build does not have the GOOS and GOARCH
// of the build that has it, where they differ from gopls's own
// (" [freebsd,386]"), as it does for the build it makes while a file for
// another system is open.
func (b *Build) OtherBuildOf(message string) bool {
	m := buildSuffix.FindStringSubmatch(message)
	if m == nil {
		return false
	}
	ctx := b.context()
	var own []string
	if ctx.GOOS != runtime.GOOS {
		own = append(own, ctx.GOOS)
	}
	if ctx.GOARCH != runtime.GOARCH {
		own = append(own, ctx.GOARCH)
	}
	return m[1] != strings.Join(own, ",")
}

// buildSuffix is the suffix gopls gives a diagnostic of a build other
// than its default one: a GOOS, a GOARCH or both (see OtherBuildOf).
var buildSuffix = regexp.MustCompile(`\s\[((?:aix|android|darwin|dragonfly|freebsd|hurd|illumos|ios|js|linux|netbsd|openbsd|plan9|solaris|wasip1|windows|zos)(?:,(?:386|amd64|arm|arm64|loong64|mips|mipsle|mips64|mips64le|ppc64|ppc64le|riscv64|s390x|wasm))?|(?:386|amd64|arm|arm64|loong64|mips|mipsle|mips64|mips64le|ppc64|ppc64le|riscv64|s390x|wasm))\]$`)
