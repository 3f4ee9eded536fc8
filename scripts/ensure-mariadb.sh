#!/usr/bin/env bash
# Makes sure the local MariaDB/MySQL on 127.0.0.1:3306 answers, starting this machine's MariaDB
# when it is installed but down. Exits non-zero when none can be reached.
set -euo pipefail
ping() { mysqladmin --host=127.0.0.1 --port=3306 --user=root --connect-timeout=2 ping >/dev/null 2>&1; }
if ping; then exit 0; fi
if [ -x /usr/sbin/mariadbd ]; then
  echo "[assay] starting MariaDB" >&2
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd
  for _ in $(seq 1 60); do ping && exit 0; sleep 1; done
fi
echo "[assay] no MySQL/MariaDB answers on 127.0.0.1:3306" >&2
exit 1
