#!/bin/sh
# Creates Temporal's two PostgreSQL databases when missing and brings their schemas to the versions
# this server ships (the SQL tool's embedded schemas postgresql/v12/temporal and
# postgresql/v12/visibility). Idempotent: run before every start. Used by `make cluster`
# (bin/cluster.ts) and by docker-compose.yml (service temporal-schema); docs/cluster.md.
# Environment: TEMPORAL_SQL_TOOL (temporal-sql-tool on PATH), and deploy/temporal/config.yaml's
# TEMPORAL_SERVER_DB_HOST/_PORT/_USER/_PASSWORD/_NAME/_VISIBILITY_DB_NAME with the same defaults.
set -eu
tool="${TEMPORAL_SQL_TOOL:-temporal-sql-tool}"
export SQL_PASSWORD="${TEMPORAL_SERVER_DB_PASSWORD:-}"
set -- --plugin postgres12 --endpoint "${TEMPORAL_SERVER_DB_HOST:-127.0.0.1}" --port "${TEMPORAL_SERVER_DB_PORT:-5432}" \
  --user "${TEMPORAL_SERVER_DB_USER:-postgres}"

setup() { # <database> <embedded schema name>
  out="$("$tool" "$@" 2>&1)" && return 0
  echo "$out" >&2
  return 1
}
for pair in "${TEMPORAL_SERVER_DB_NAME:-assay_temporal}=postgresql/v12/temporal" \
            "${TEMPORAL_SERVER_VISIBILITY_DB_NAME:-assay_temporal_visibility}=postgresql/v12/visibility"; do
  db="${pair%%=*}"
  schema="${pair#*=}"
  if ! out="$("$tool" "$@" --database "$db" create-database 2>&1)"; then
    case "$out" in *"already exists"*) ;; *) echo "$out" >&2; exit 1 ;; esac
  fi
  setup "$@" --database "$db" setup-schema -v 0.0
  setup "$@" --database "$db" update-schema --schema-name "$schema"
  echo "[temporal-schema] $db: schema $schema up to date" >&2
done
