#!/usr/bin/env bash
# Makes sure Debian's Chromium is installed for the browser tests: playwright-core
# drives /usr/bin/chromium; no browser is ever downloaded by a test tool. Installs the `chromium`
# package with apt when it is missing (root, or sudo without a password). CHROMIUM_PATH overrides.
# A fresh machine may have an apt or dpkg run under way (unattended upgrades) or one that was
# interrupted: apt waits for dpkg's lock (DPkg::Lock::Timeout, apt-get(8)) and an interrupted dpkg
# is finished with `dpkg --configure -a` (what apt's own error message asks for) before one retry.
set -euo pipefail
path="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$path" ]; then exit 0; fi
echo "[assay] installing Debian's chromium for the browser tests" >&2
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo -n"; fi
export DEBIAN_FRONTEND=noninteractive
APT=(apt-get -o DPkg::Lock::Timeout=600 -y -qq)
install() { $SUDO "${APT[@]}" install chromium >/dev/null; }
$SUDO "${APT[@]}" update >/dev/null || true
if ! install; then
  echo "[assay] apt could not install chromium; finishing any interrupted dpkg run and retrying" >&2
  $SUDO dpkg --configure -a || true
  $SUDO "${APT[@]}" -f install >/dev/null || true
  $SUDO "${APT[@]}" update >/dev/null || true
  install
fi
[ -x "$path" ] || { echo "[assay] chromium is still missing at $path" >&2; exit 1; }
