#!/usr/bin/env bash
# Makes sure PostgreSQL answers on TEMPORAL_SERVER_DB_HOST:TEMPORAL_SERVER_DB_PORT (127.0.0.1:5432),
# where `make cluster` keeps Temporal's databases (docs/cluster.md), starting this machine's
# PostgreSQL cluster (pg_ctlcluster) when it is installed but down. Exits non-zero when none answers.
set -euo pipefail
host="${TEMPORAL_SERVER_DB_HOST:-127.0.0.1}"
port="${TEMPORAL_SERVER_DB_PORT:-5432}"
ready() { pg_isready --host="$host" --port="$port" --timeout=2 >/dev/null 2>&1; }
if ready; then exit 0; fi
if command -v pg_lsclusters >/dev/null && command -v pg_ctlcluster >/dev/null; then
  pg_lsclusters --no-header 2>/dev/null | while read -r version name _; do
    echo "[assay] starting PostgreSQL $version/$name" >&2
    pg_ctlcluster "$version" "$name" start || true
  done
  for _ in $(seq 1 30); do ready && exit 0; sleep 1; done
fi
echo "[assay] no PostgreSQL answers on $host:$port (Temporal's store for make cluster)" >&2
exit 1
