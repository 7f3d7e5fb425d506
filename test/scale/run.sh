#!/usr/bin/env bash
# The scale test (README.md#tests): 3 APIs and 3 workers from a compiled build on a Redis Cluster of
# 3 masters with a replica each and behind PgBouncer (transaction pooling), against real PostgreSQL
# on 127.0.0.1:5432. Needs redis-server, redis-cli and pgbouncer (installed here when missing and
# apt-get is there). Compiles into a temporary directory (never dist/), then prints the figures.
# Sizes: SCALE_EVENTS (5000), SCALE_ROUND_EVENTS (1000).
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v pgbouncer >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  apt-get install -y --no-install-recommends pgbouncer >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 && apt-get install -y --no-install-recommends pgbouncer >/dev/null 2>&1; }
fi
command -v pgbouncer >/dev/null 2>&1 || { echo "pgbouncer is not installed (apt-get install pgbouncer)" >&2; exit 1; }
WORKER_DIST="$(mktemp -d "${TMPDIR:-/tmp}/cp-scale-dist.XXXXXX")"
SCALE_REPORT="$WORKER_DIST/report.txt"
SCALE_LOG_DIR="$WORKER_DIST/logs"
mkdir -p "$SCALE_LOG_DIR"
export WORKER_DIST SCALE_REPORT SCALE_LOG_DIR
trap 'rm -rf "$WORKER_DIST"' EXIT
npx tsc -p tsconfig.build.json --outDir "$WORKER_DIST" --tsBuildInfoFile "$WORKER_DIST/.tsbuildinfo" >/dev/null || true
for entry in main.js worker.js; do
  test -f "$WORKER_DIST/$entry" || { echo "$entry did not compile" >&2; exit 1; }
done
status=0
npx jest --config test/scale/jest.config.js --runInBand "$@" || status=$?
if [ "$status" -ne 0 ]; then
  for log in "$SCALE_LOG_DIR"/*.log; do
    if [ -s "$log" ]; then
      printf '\n=== %s (last 40 lines)\n' "$(basename "$log")"
      tail -n 40 "$log"
    fi
  done
fi
printf '\n=== scale test figures (%s, %s cores)\n' "$(date -u +%FT%TZ)" "$(nproc)"
cat "$SCALE_REPORT" 2>/dev/null || echo "(none: the run stopped before measuring)"
exit "$status"
