#!/usr/bin/env bash
# Makes sure Debian's Chromium is installed for the browser tests: playwright-core
# drives /usr/bin/chromium; no browser is ever downloaded by a test tool. Installs the `chromium`
# package with apt when it is missing (root, or sudo without a password). CHROMIUM_PATH overrides.
set -euo pipefail
path="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$path" ]; then exit 0; fi
echo "[assay] installing Debian's chromium for the browser tests" >&2
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo -n"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null || true
$SUDO apt-get install -y -qq chromium >/dev/null
[ -x "$path" ] || { echo "[assay] chromium is still missing at $path" >&2; exit 1; }
