#!/usr/bin/env bash
# Puts k6 (the load-testing peer bench/load.ts compares against) into ~/.cache/assay/bin when it is
# missing: `go install go.k6.io/k6@v1.8.1` from the Go module proxy (a few minutes, once). Never
# fails the bench: without Go or the proxy, bench/load.ts reports k6 as not installed.
ASSAY_CACHE="${ASSAY_CACHE:-$HOME/.cache/assay}"
if command -v k6 >/dev/null 2>&1 || [ -x "$ASSAY_CACHE/bin/k6" ]; then exit 0; fi
if ! command -v go >/dev/null 2>&1; then echo "[assay] k6 not found and Go is not installed: bench/load.ts leaves k6 out" >&2; exit 0; fi
echo "[assay] building k6 v1.8.1 into $ASSAY_CACHE/bin (a few minutes, once)" >&2
mkdir -p "$ASSAY_CACHE/bin"
GOBIN="$ASSAY_CACHE/bin" go install go.k6.io/k6@v1.8.1 || echo "[assay] go install of k6 failed: bench/load.ts leaves k6 out" >&2
exit 0
