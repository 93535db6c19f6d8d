# goplsmcp in a container: the MCP server and the pinned gopls, built as the
# Makefile builds them, run as a non-root user beside the Go toolchain gopls
# needs (it runs go list and go env to load the workspace). Serves MCP over
# Streamable HTTP on port 8765 for the workspace mounted read-only at
# /workspace, with the bearer token from /run/secrets/goplsmcp-token:
#
#   docker build -t goplsmcp .
#   docker run --rm --user "$(id -u):$(id -g)" -p 127.0.0.1:8765:8765 \
#     -v "$PWD:/workspace:ro" -v "$(go env GOMODCACHE):/gomodcache:ro" \
#     -v "$HOME/.config/goplsmcp/token:/run/secrets/goplsmcp-token:ro" goplsmcp
#
# The offline defaults hold: goplsmcp gives gopls GOPROXY=off,
# GOTOOLCHAIN=local and -mod=readonly unless --allow-network is passed, so
# nothing here sets them (an image-wide GOPROXY=off would defeat
# --allow-network). See docs/sidecar.md, "Run as a sidecar", and
# deploy/kubernetes.yaml.
#
# cmd/goplsmcp/deploy_test.go runs the build stage's RUN lines in a copy of
# the repository and this image's default command on a fixture, so the
# recipe cannot drift from what works: keep the build stage to WORKDIR,
# COPY and RUN lines a shell can run there.

FROM golang:1.27-trixie AS build
WORKDIR /src
# The modules first: a change to the source alone reuses this layer.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN make build

# The same Debian release as the build stage, whose C library the binaries
# are linked against.
FROM debian:trixie-slim
# curl for the health check; ca-certificates for --allow-network. A
# workspace with cgo code also wants gcc and libc6-dev here: without a C
# compiler the go command builds with CGO_ENABLED=0.
# /cache is writable by any user, so that the image also runs as the user
# who owns the workspace and the token (docker run --user, OpenShift).
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --uid 10001 --user-group --create-home --home-dir /home/goplsmcp --shell /usr/sbin/nologin goplsmcp \
 && mkdir -m 1777 /cache
# The toolchain gopls was built with is the one it runs.
COPY --from=build /usr/local/go /usr/local/go
COPY --from=build /src/bin/goplsmcp /src/bin/gopls /usr/local/bin/
# gopls keeps its file cache, and the go command its build cache, under
# XDG_CACHE_HOME: with a read-only root file system, mount a writable
# volume there, and on /tmp, where gopls writes its unsaved files for go
# list. The workspace's dependencies are read from GOMODCACHE: mount the
# dev environment's module cache there, read-only (offline, nothing is
# downloaded).
ENV PATH=/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/home/goplsmcp \
    XDG_CACHE_HOME=/cache \
    GOMODCACHE=/gomodcache
USER 10001:10001
WORKDIR /workspace
EXPOSE 8765
HEALTHCHECK --interval=30s --timeout=3s --start-period=30s CMD ["curl", "-fsS", "-o", "/dev/null", "http://127.0.0.1:8765/healthz"]
CMD ["goplsmcp", "--http", "0.0.0.0:8765", "--token-file", "/run/secrets/goplsmcp-token", "--root", "/workspace"]
