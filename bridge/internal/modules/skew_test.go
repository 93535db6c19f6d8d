package modules

import (
	"testing"

	"github.com/goplsmcp/goplsmcp/lspclient"
)

func TestSkewSentence(t *testing.T) {
	v23go126 := lspclient.GoplsBuild{Version: "v0.23.0", GoVersion: "go1.26.8"}
	pin := lspclient.PinnedGopls // the remedy names it
	tests := []struct {
		name      string
		gopls     lspclient.GoplsBuild
		workspace string
		goCmd     string
		where     string
		want      string
	}{
		{"older than both", v23go126, "1.27", "go1.27.3", "on PATH",
			"gopls v0.23.0 was built with go1.26.8, older than this workspace's go 1.27 and than go1.27.3 on PATH: it reports newer syntax and APIs as errors; rebuild it with the newer Go (go install golang.org/x/tools/gopls@" + pin + ")"},
		{"older than the workspace, as the go command is", v23go126, "1.27", "go1.26.8", "on PATH",
			"gopls v0.23.0 was built with go1.26.8, older than this workspace's go 1.27: it reports newer syntax and APIs as errors; rebuild it with the newer Go (GOTOOLCHAIN=go1.27.0 go install golang.org/x/tools/gopls@" + pin + ")"},
		{"older than the workspace's patch release line", v23go126, "1.27.2", "go1.26.8", "on PATH",
			"gopls v0.23.0 was built with go1.26.8, older than this workspace's go 1.27.2: it reports newer syntax and APIs as errors; rebuild it with the newer Go (GOTOOLCHAIN=go1.27.2 go install golang.org/x/tools/gopls@" + pin + ")"},
		{"older than the go command only", v23go126, "1.25", "go1.27.3", "named by GOTOOLCHAIN",
			"gopls v0.23.0 was built with go1.26.8, older than go1.27.3 named by GOTOOLCHAIN: it reports newer syntax and APIs as errors; rebuild it with the newer Go (go install golang.org/x/tools/gopls@" + pin + ")"},
		{"a newer gopls is rebuilt as it is", lspclient.GoplsBuild{Version: "v0.25.1", GoVersion: "go1.27.3"}, "1.28", "go1.28.0", "on PATH",
			"gopls v0.25.1 was built with go1.27.3, older than this workspace's go 1.28 and than go1.28.0 on PATH: it reports newer syntax and APIs as errors; rebuild it with the newer Go (go install golang.org/x/tools/gopls@v0.25.1)"},
		{"a patch release apart is no skew", lspclient.GoplsBuild{Version: "v0.24.0", GoVersion: "go1.27.0"}, "1.27.3", "go1.27.3", "on PATH", ""},
		{"newer than both", lspclient.GoplsBuild{Version: "v0.24.0", GoVersion: "go1.27.3"}, "1.26", "go1.26.8", "on PATH", ""},
		{"no workspace line, no go command", v23go126, "", "", "on PATH", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := skewSentence(tt.gopls, tt.workspace, tt.goCmd, func() string { return tt.where }); got != tt.want {
				t.Errorf("skewSentence =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
