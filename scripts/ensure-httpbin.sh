#!/usr/bin/env bash
# Prints the path of go-httpbin (an HTTP test service nobody on this project wrote, answering the
# routes postman-echo answers: /get, /post, /status/{code}, /headers, /basic-auth/{u}/{p}, …),
# building v2.18.3 from the Go module proxy into ~/.cache/assay/bin when missing. Used by
# `make demo` and by the Postman import test (test/integration/cli/postman-newman.test.ts).
set -euo pipefail
HTTPBIN="${HTTPBIN:-${ASSAY_CACHE:-$HOME/.cache/assay}/bin/go-httpbin}"
if [ ! -x "$HTTPBIN" ]; then
  if ! command -v go >/dev/null 2>&1; then
    echo "[assay] go-httpbin is missing and Go is not installed; install Go or set HTTPBIN" >&2
    exit 1
  fi
  echo "[assay] building go-httpbin v2.18.3 into $(dirname "$HTTPBIN")" >&2
  mkdir -p "$(dirname "$HTTPBIN")"
  GOBIN="$(dirname "$HTTPBIN")" go install github.com/mccutchen/go-httpbin/v2/cmd/go-httpbin@v2.18.3
fi
echo "$HTTPBIN"
