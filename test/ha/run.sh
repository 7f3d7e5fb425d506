#!/usr/bin/env bash
# The failover test (docs/operations.md#testing-a-failover): a pg_auto_failover monitor and two
# PostgreSQL 15 nodes with synchronous replication behind HAProxy (test/ha/cluster.sh, data in a
# temporary directory, stopped by PID at the end), two APIs and two workers compiled into a temporary
# directory, 50 writes/s while the primary dies, comes back as the standby, and a switchover; then the
# read replica. Installs Debian's pg-auto-failover-cli, postgresql-15-auto-failover and haproxy when
# missing. Prints the figures. Timeline: HA_KILL_AT (20 s), HA_REVIVE_AT (60 s), HA_RATE (50/s).
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! { command -v pg_autoctl && command -v haproxy; } >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  packages="pg-auto-failover-cli postgresql-15-auto-failover haproxy"
  # shellcheck disable=SC2086 # several packages
  apt-get install -y --no-install-recommends $packages >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 && apt-get install -y --no-install-recommends $packages >/dev/null 2>&1; }
fi
for tool in pg_autoctl haproxy; do
  command -v "$tool" >/dev/null 2>&1 || { echo "$tool is not installed" >&2; exit 1; }
done
WORK="$(mktemp -d "${TMPDIR:-/tmp}/cp-ha.XXXXXX")"
WORKER_DIST="$WORK/dist"
HA_DIR="$WORK/cluster"
HA_REPORT="$WORK/report.txt"
HA_LOG_DIR="$WORK/logs"
mkdir -p "$WORKER_DIST" "$HA_DIR" "$HA_LOG_DIR"
chmod 711 "$WORK" # the postgres user runs the formation in $HA_DIR
SCALE_LOG_DIR="$HA_LOG_DIR" # test/scale/fleet.ts leaves each process's output there
export WORKER_DIST HA_DIR HA_REPORT HA_LOG_DIR SCALE_LOG_DIR
cleanup() {
  bash test/ha/cluster.sh stop "$HA_DIR" || true
  rm -rf "$WORK"
}
trap cleanup EXIT
npx tsc -p tsconfig.build.json --outDir "$WORKER_DIST" --tsBuildInfoFile "$WORKER_DIST/.tsbuildinfo" >/dev/null || true
for entry in main.js worker.js; do
  test -f "$WORKER_DIST/$entry" || { echo "$entry did not compile" >&2; exit 1; }
done
started=$SECONDS
bash test/ha/cluster.sh start "$HA_DIR"
echo "formation up in $((SECONDS - started)) s: $(bash test/ha/cluster.sh state "$HA_DIR" | tail -n 2 | tr -s ' ' | tr '\n' ';')"
# the formation's database gets the migrations once, as the run's own database does: every spec may run first
DATABASE_URL="$(sed -n 's/^WRITE_URL=//p' "$HA_DIR/env")" node node_modules/prisma/build/index.js migrate deploy >/dev/null
status=0
npx jest --config test/ha/jest.config.js --runInBand "$@" || status=$?
if [ "$status" -ne 0 ]; then
  for log in "$HA_LOG_DIR"/*.log "$HA_DIR"/*.log; do
    [ -s "$log" ] && { printf '\n=== %s (last 30 lines)\n' "$(basename "$log")"; tail -n 30 "$log"; }
  done
fi
printf '\n=== failover test figures (%s, %s cores)\n' "$(date -u +%FT%TZ)" "$(nproc)"
cat "$HA_REPORT" 2>/dev/null || echo "(none: the run stopped before measuring)"
exit "$status"
