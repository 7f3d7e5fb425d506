#!/usr/bin/env bash
# CI: proves docs/adding-a-module.md's scaffold. `npm run module:new` runs in a scratch copy of the
# repository (the files git tracks or would track, node_modules linked), and the copy must then
# type-check, lint, pass the import rules, build, and pass the table-owner and access specs, the new
# module's e2e spec and the central event-delivery specs, which raise its events through its routes.
# The copy is removed at the end, on failure too. Needs PostgreSQL and Redis, like the tests.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
name="${1:-scaffold-probes}"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/module-scaffold.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

step() { printf '\n--- %s\n' "$*"; }

step "copy of the repository in $scratch"
(cd "$root" && git ls-files -z --cached --others --exclude-standard | grep -zv '^node_modules$' |
  tar --null -T - -cf -) | tar -C "$scratch" -xf -
ln -s "$(readlink -f "$root/node_modules")" "$scratch/node_modules"
cd "$scratch"

step "npm run module:new -- $name"
start=$SECONDS
npm run --silent module:new -- "$name"
echo "scaffolded in $((SECONDS - start)) s"

new_files=(src/modules/"$name" test/"$name")
step "type-check, lint, format, import rules"
npx tsc --noEmit
npx eslint "${new_files[@]}" src/app.module.ts src/modules/events/module-events.ts src/common/access/features.ts
npx prettier --check "${new_files[@]}" docs/product-decisions.md
npm run --silent check:imports

step "build (the tests check every answer against dist/'s OpenAPI document)"
npx nest build

step "specs"
npx jest src/prisma/table-owners.spec.ts src/common/access/access.spec.ts "test/$name" \
  test/delivery/events.e2e-spec.ts test/delivery/event-schemas.e2e-spec.ts
