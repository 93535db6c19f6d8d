package bridge

import (
	"go/build"
	"strings"
	"sync"

	"github.com/goplsmcp/goplsmcp/lspclient"
)

// buildContext is the build configuration gopls type-checks with, as far
// as choosing files goes: GOOS, GOARCH and CGO_ENABLED from the
// environment gopls gives the go command, and the tags of its build flags
// and GOFLAGS (the env setting's, goplsmcp's environment's, or the go env
// file's). A file it excludes is in no package gopls knows, so
// syntax-based lookups (a symbol's declaration) leave it out too.
type buildContext struct {
	once sync.Once
	ctx  build.Context
}

func (b *Bridge) goBuild() *build.Context {
	b.build.once.Do(func() {
		ctx := build.Default
		env := b.client.GoEnv()
		lookup := func(key string) string {
			for i := len(env) - 1; i >= 0; i-- {
				if v, ok := strings.CutPrefix(env[i], key+"="); ok {
					return v
				}
			}
			return ""
		}
		if v := lookup("GOOS"); v != "" {
			ctx.GOOS = v
		}
		if v := lookup("GOARCH"); v != "" {
			ctx.GOARCH = v
		}
		if v := lookup("CGO_ENABLED"); v != "" {
			ctx.CgoEnabled = v == "1"
		}
		// GOFLAGS as gopls's go command has it: the env setting's, else
		// goplsmcp's environment's (--env's), else the go env file's.
		goflags := lspclient.LookupEnv(b.client.OfflineGoEnv(), "GOFLAGS")
		flags := append(strings.Fields(goflags), b.client.BuildFlags()...)
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
		b.build.ctx = ctx
	})
	return &b.build.ctx
}

// inBuild reports whether the file name in dir is part of the build gopls
// type-checks (its build constraints and file name allow it).
func (b *Bridge) inBuild(dir, name string) bool {
	ok, err := b.goBuild().MatchFile(dir, name)
	return err != nil || ok
}
