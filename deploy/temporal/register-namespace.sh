#!/bin/sh
# Registers Temporal namespace $TEMPORAL_NAMESPACE (default "default", retention 3 days) when it does
# not exist, retrying for up to a minute while the server starts. Assay registers its own search
# attributes at start-up (src/temporal/search-attributes.ts). Used by `make cluster`
# (bin/cluster.ts) and docker-compose.yml (service temporal-namespace); docs/cluster.md.
# Environment: TEMPORAL_CLI (temporal on PATH), TEMPORAL_ADDRESS (127.0.0.1:7233), TEMPORAL_NAMESPACE.
set -u
cli="${TEMPORAL_CLI:-temporal}"
address="${TEMPORAL_ADDRESS:-127.0.0.1:7233}"
namespace="${TEMPORAL_NAMESPACE:-default}"
i=0
while [ "$i" -lt 60 ]; do
  if "$cli" operator namespace describe --namespace "$namespace" --address "$address" >/dev/null 2>&1; then
    echo "[temporal-namespace] $namespace is registered" >&2
    exit 0
  fi
  "$cli" operator namespace create --namespace "$namespace" --retention 72h --address "$address" >/dev/null 2>&1
  i=$((i + 1))
  sleep 1
done
echo "[temporal-namespace] could not register $namespace on $address" >&2
exit 1
