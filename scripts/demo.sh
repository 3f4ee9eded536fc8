#!/usr/bin/env bash
# `make demo`: builds go-httpbin (an HTTP test service nobody on this project wrote) from the Go
# module proxy into ~/.cache/assay/bin when missing, then runs the demo suite against it.
set -euo pipefail
cd "$(dirname "$0")/.."
HTTPBIN="$(scripts/ensure-httpbin.sh)"
HTTPBIN="$HTTPBIN" exec node --no-node-snapshot --enable-source-maps dist/scripts/demo.js
