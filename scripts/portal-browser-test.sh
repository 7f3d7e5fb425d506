#!/usr/bin/env bash
# The webhook portal's browser test (docs/api.md#webhook-portal): Debian's Chromium (installed with apt-get when
# missing, never a browser download), then the compiled API and worker (`npm run build` first).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/chromium ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
[ -f dist/main.js ] && [ -f dist/portal/index.html ] || npm run build
exec node scripts/portal-browser-test.mjs "$@"
