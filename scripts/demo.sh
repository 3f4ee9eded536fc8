#!/usr/bin/env bash
# `make demo`: builds go-httpbin (an HTTP test service nobody on this project wrote) from the Go
# module proxy into ~/.cache/assay/bin when missing, then runs the demo suite against it.
set -euo pipefail
cd "$(dirname "$0")/.."
HTTPBIN="${HTTPBIN:-$HOME/.cache/assay/bin/go-httpbin}"
if [ ! -x "$HTTPBIN" ]; then
  echo "[assay] building go-httpbin v2.18.3 into $(dirname "$HTTPBIN")" >&2
  GOBIN="$(dirname "$HTTPBIN")" go install github.com/mccutchen/go-httpbin/v2/cmd/go-httpbin@v2.18.3
fi
HTTPBIN="$HTTPBIN" exec node --no-node-snapshot --enable-source-maps dist/scripts/demo.js
