#!/usr/bin/env bash
# Builds what `make cluster` runs (docs/cluster.md) into $ASSAY_CACHE (default ~/.cache/assay), once,
# with `go install` from the Go module proxy (no Docker):
#   temporal-server-1.30.8/bin/temporal-server     go.temporal.io/server/cmd/server@v1.30.8
#   temporal-server-1.30.8/bin/temporal-sql-tool   go.temporal.io/server/cmd/tools/sql@v1.30.8
#   temporal-ui-server-2.42.1/bin/temporal-ui-server  github.com/temporalio/ui-server/v2/cmd/server@v2.42.1
#     (optional: when it does not build, the cluster runs without the Web UI and says so)
# v1.30.8 is the newest server that builds with the Go here (v1.30.9+ and v1.31.5+ need a newer Go).
# Each binary is built only when missing. Exits non-zero when the server or the SQL tool cannot be built.
set -uo pipefail
ASSAY_CACHE="${ASSAY_CACHE:-$HOME/.cache/assay}"
SERVER_VERSION=1.30.8
UI_VERSION=2.42.1
server_dir="$ASSAY_CACHE/temporal-server-$SERVER_VERSION/bin"
ui_dir="$ASSAY_CACHE/temporal-ui-server-$UI_VERSION/bin"
log() { printf '[assay] %s\n' "$*" >&2; }

# build <package@version> <dir> <final name>: GOBIN=<dir> go install, then rename the binary
# (`server` / `sql`) to its final name. A failed build leaves nothing behind.
build() {
  local pkg="$1" dir="$2" name="$3" built
  built="$(basename "${pkg%@*}")"
  [ -x "$dir/$name" ] && return 0
  command -v go >/dev/null || { log "Go is needed to build $name ($pkg)"; return 1; }
  log "building $name from $pkg into $dir (several minutes, once)"
  local tmp; tmp="$(mktemp -d)"
  if GOBIN="$tmp" GOFLAGS=-mod=mod go install "$pkg" && [ -x "$tmp/$built" ]; then
    mkdir -p "$dir" && mv "$tmp/$built" "$dir/$name"
    rm -rf "$tmp"
    return 0
  fi
  rm -rf "$tmp"
  log "go install $pkg failed"
  return 1
}

build "go.temporal.io/server/cmd/server@v$SERVER_VERSION" "$server_dir" temporal-server || exit 1
build "go.temporal.io/server/cmd/tools/sql@v$SERVER_VERSION" "$server_dir" temporal-sql-tool || exit 1
if [ "${ASSAY_CLUSTER_UI:-1}" != "0" ] && [ ! -e "$ui_dir/.build-failed" ]; then
  build "github.com/temporalio/ui-server/v2/cmd/server@v$UI_VERSION" "$ui_dir" temporal-ui-server \
    || { mkdir -p "$ui_dir" && touch "$ui_dir/.build-failed"; log "the Temporal UI server did not build: the cluster runs without it (remove $ui_dir/.build-failed to try again)"; }
fi
exit 0
