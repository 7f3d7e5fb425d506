#!/usr/bin/env bash
# Runs the resilience scenarios (test/resilience/*.resilience-spec.ts) against real PostgreSQL and
# Redis on 127.0.0.1 and the redis-server binary. Compiles the worker into a temporary directory
# (never dist/) so the tests can run it as a child process and kill it.
set -euo pipefail
cd "$(dirname "$0")/../.."
WORKER_DIST="$(mktemp -d "${TMPDIR:-/tmp}/cp-resilience-dist.XXXXXX")"
export WORKER_DIST
trap 'rm -rf "$WORKER_DIST"' EXIT
npx tsc -p tsconfig.build.json --outDir "$WORKER_DIST" --tsBuildInfoFile "$WORKER_DIST/.tsbuildinfo" >/dev/null || true
test -f "$WORKER_DIST/worker.js" || { echo "worker did not compile" >&2; exit 1; }
npx jest --config test/resilience/jest.config.js --runInBand "$@"
