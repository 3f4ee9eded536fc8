#!/usr/bin/env bash
# Runs built test files (dist/) in another order than mocha's sorted one, to catch a file that
# passes only after (or before) another. Prints the order first, so a failing order
# can be run again. Needs `npm run build` (or `make build`) first; runs mocha as `make test-unit`
# does (dist/test/setup.js, whose leak check fails a file that leaves process.env changed or a
# server listening).
#
#   scripts/test-order.sh reverse [FILE...]        the files in reverse order
#   scripts/test-order.sh shuffle [SEED] [FILE...]  a shuffle; the same SEED gives the same order
#                                                  (default: a random seed, printed)
#
# FILE... defaults to every file of the suite (dist/test/{unit,integration,browser}/**/*.test.js);
# e.g. `scripts/test-order.sh shuffle 7 dist/test/browser/*.test.js` for the browser files only.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

mode="${1:-}"
shift || true
case "$mode" in
  reverse) seed="" ;;
  shuffle)
    if [[ "${1:-}" =~ ^[0-9]+$ ]]; then seed="$1"; shift; else seed="$RANDOM$RANDOM"; fi ;;
  *) echo "usage: scripts/test-order.sh reverse|shuffle [SEED] [FILE...]" >&2; exit 2 ;;
esac

if [ $# -eq 0 ]; then
  mapfile -t files < <(find dist/test/unit dist/test/integration dist/test/browser -name '*.test.js' | sort)
else
  files=("$@")
fi
[ ${#files[@]} -gt 0 ] || { echo "no test files: run npm run build first" >&2; exit 2; }

# Order with Node: reversed, or a Fisher–Yates shuffle driven by a small seeded generator (mulberry32).
mapfile -t ordered < <(MODE="$mode" SEED="$seed" node -e '
  const files = require("node:fs").readFileSync(0, "utf8").split("\n").filter(Boolean);
  if (process.env.MODE === "reverse") files.reverse();
  else {
    let a = Number(process.env.SEED) >>> 0;
    const random = () => { a = (a + 0x6d2b79f5) >>> 0; let t = Math.imul(a ^ (a >>> 15), 1 | a); t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
    for (let i = files.length - 1; i > 0; i--) { const j = Math.floor(random() * (i + 1)); [files[i], files[j]] = [files[j], files[i]]; }
  }
  console.log(files.join("\n"));
' < <(printf '%s\n' "${files[@]}"))

echo "[assay] ${mode}${seed:+ (seed $seed)}: ${#ordered[@]} files in this order:" >&2
printf '  %s\n' "${ordered[@]}" >&2
# --no-config: .mocharc.json's spec list would add every file again, in mocha's order.
exec npx mocha --no-config --require dist/test/setup.js --timeout 60000 --exit --node-option no-node-snapshot --node-option enable-source-maps --node-option expose-gc "${ordered[@]}"
