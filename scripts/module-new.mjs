#!/usr/bin/env node
// `npm run module:new -- <name> [--singular <word>] [--plan FREE|PRO|ENTERPRISE]`: a feature module as
// docs/adding-a-module.md describes it, ready to build and test, like `nest g resource`:
//   - the folder src/modules/<name>/ (module, controller, service, store, DTOs, two events) and
//     test/<name>/ (the e2e spec, the events' triggers for the central delivery specs);
//   - the registrations, one line each: AppModule's imports, module-events.ts, features.ts;
//   - the Prisma model with its back-relation on Community, and its migration with the counter line
//     (npm run db:migrate:create, which needs PostgreSQL);
//   - the feature's row and the events in docs/product-decisions.md.
// The module is an authored item with a title (create, list, get, delete; CONTENT_CREATE to create, its
// author or CONTENT_MODERATE to delete): rename and add fields from there. When a step fails, every file
// it wrote or changed is put back.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  controllerFile,
  dtoFile,
  eventsFile,
  moduleFile,
  namesOf,
  serviceFile,
  storeFile,
} from './module-new/templates.mjs';
import { e2eSpecFile, triggersFile } from './module-new/test-templates.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const say = (line) => process.stdout.write(`[module:new] ${line}\n`);
class Failure extends Error {}

function parseArgs(argv) {
  const usage = 'usage: npm run module:new -- <name> [--singular <word>] [--plan FREE|PRO|ENTERPRISE]';
  const args = { name: undefined, singular: undefined, plan: 'PRO' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--singular') args.singular = argv[++i];
    else if (a === '--plan') args.plan = argv[++i];
    else if (a.startsWith('-') || args.name) throw new Failure(`unexpected argument '${a}'\n${usage}`);
    else args.name = a;
  }
  if (!args.name) throw new Failure(usage);
  args.singular ??= args.name.replace(/ies$/, 'y').replace(/s$/, '');
  for (const word of [args.name, args.singular]) {
    if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(word))
      throw new Failure(`'${word}' is not a lower-case name (letters, digits, single dashes)\n${usage}`);
  }
  if (!['FREE', 'PRO', 'ENTERPRISE'].includes(args.plan)) throw new Failure(usage);
  return args;
}

/** Every file written or changed, with what it held before (undefined: it did not exist). */
const touched = new Map();
function write(rel, text) {
  const file = path.join(root, rel);
  if (!touched.has(rel)) touched.set(rel, existsSync(file) ? readFileSync(file, 'utf8') : undefined);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}
function create(rel, text) {
  if (existsSync(path.join(root, rel))) throw new Failure(`${rel} exists already`);
  write(rel, text);
}
function read(rel) {
  return readFileSync(path.join(root, rel), 'utf8');
}
function putBack() {
  for (const [rel, before] of [...touched].reverse()) {
    const file = path.join(root, rel);
    if (before === undefined) rmSync(file, { force: true });
    else writeFileSync(file, before);
  }
  for (const dir of new Set([...touched.keys()].map((rel) => path.dirname(rel)))) {
    const full = path.join(root, dir);
    if (existsSync(full) && readdirSync(full).length === 0) rmSync(full, { recursive: true });
  }
}

/** `text` with `line` inserted before the first match of `before` after `after` (both regular expressions). */
function insertBefore(rel, text, line, before, after = /^/) {
  const start = text.search(after);
  const at = start < 0 ? -1 : text.slice(start).search(before);
  if (start < 0 || at < 0) throw new Failure(`${rel}: cannot find where to add ${line.trim()}`);
  return text.slice(0, start + at) + line + text.slice(start + at);
}
/** `line` after the file's last import (one line or several). */
function addImport(rel, text, line) {
  const imports = [...text.matchAll(/^import [\s\S]*? from '[^']+';\n/gm)];
  if (!imports.length) throw new Failure(`${rel}: no import to add ${line} after`);
  const last = imports.at(-1);
  const end = last.index + last[0].length;
  return text.slice(0, end) + line + '\n' + text.slice(end);
}

function registerInCode(n, plan) {
  let rel = 'src/app.module.ts';
  let text = addImport(
    rel,
    read(rel),
    `import { ${n.Plural}Module } from './modules/${n.folder}/${n.folder}.module';`,
  );
  write(
    rel,
    insertBefore(rel, text, `    ${n.Plural}Module,\n`, /^ {2}\],$/m, /^@Module\(\{\n {2}imports: \[/m),
  );

  rel = 'src/modules/events/module-events.ts';
  text = addImport(
    rel,
    read(rel),
    `import { ${n.CONST}_EVENTS } from '../${n.folder}/${n.singularFile}.events';`,
  );
  write(rel, insertBefore(rel, text, `  ...${n.CONST}_EVENTS,\n`, /^\] as const;$/m));

  rel = 'src/common/access/features.ts';
  text = read(rel);
  if (new RegExp(`^ {2}${n.feature}:`, 'm').test(text))
    throw new Failure(`${rel}: ${n.feature} is there already`);
  write(rel, insertBefore(rel, text, `  ${n.feature}: '${plan}',\n`, /^\} as const satisfies/m));
}

function registerInSchema(n) {
  const rel = 'prisma/schema.prisma';
  let text = read(rel);
  if (new RegExp(`^model ${n.Singular} \\{`, 'm').test(text))
    throw new Failure(`${rel}: model ${n.Singular} exists`);
  // the back-relation: the last line of Community's relation fields, before its @@map
  text = insertBefore(
    rel,
    text,
    `  ${n.pluralCamel} ${n.Singular}[]\n`,
    /\n {2}@@map\("communities"\)/,
    /^model Community \{/m,
  );
  text = text.replace(/\n*$/, '\n');
  text += `
/// ${n.Plural} (src/modules/${n.folder}): read and written by ${n.Plural}Store only
model ${n.Singular} {
  id          String   @id @default(uuid()) @db.Uuid
  communityId String   @map("community_id") @db.Uuid
  authorId    String   @map("author_id") @db.Uuid
  title       String
  createdAt   DateTime @default(now()) @map("created_at") @db.Timestamptz(3)

  community Community @relation(fields: [communityId], references: [id], onDelete: Cascade)

  @@unique([communityId, id])
  @@index([communityId, createdAt(sort: Desc), id(sort: Desc)])
  @@map("${n.table}")
}
`;
  write(rel, text);
}

function registerInDocs(n, plan) {
  const rel = 'docs/product-decisions.md';
  let text = read(rel);
  const marks = { FREE: ['✓', '✓', '✓'], PRO: ['', '✓', '✓'], ENTERPRISE: ['', '', '✓'] }[plan];
  // the feature table: a row after its last one
  const table = /^\| featureKey[^\n]*\n(\|[^\n]*\n)+/m.exec(text);
  if (!table) throw new Failure(`${rel}: cannot find the featureKey table`);
  const end = table.index + table[0].length;
  text = `${text.slice(0, end)}| ${n.feature} | ${marks.join(' | ')} |\n${text.slice(end)}`;
  const created = `\`${n.eventPrefix}.created\``;
  const deleted = `\`${n.eventPrefix}.deleted\``;
  text = insertBefore(rel, text, `${created}, ${deleted},\n  `, /and the operational/, /^## 5\. Webhooks/m);
  text = insertBefore(
    rel,
    text,
    `| ${created}, ${deleted} | the ${n.noun} |\n`,
    /^\| `webhook\.endpoint\.\*`/m,
    /^### Event subjects/m,
  );
  write(rel, text);
}

function run(command, args, what) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: process.env });
  if (result.status !== 0) throw new Failure(`${what} failed (exit code ${result.status ?? result.signal})`);
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const n = namesOf(args.name, args.singular);
  const src = `src/modules/${n.folder}`;
  if (existsSync(path.join(root, src))) throw new Failure(`${src} exists already`);
  const before = new Set(readdirSync(path.join(root, 'prisma/migrations')));
  try {
    create(`${src}/${n.folder}.module.ts`, moduleFile(n));
    create(`${src}/${n.folder}.controller.ts`, controllerFile(n));
    create(`${src}/${n.folder}.service.ts`, serviceFile(n));
    create(`${src}/${n.folder}.store.ts`, storeFile(n));
    create(`${src}/dto/${n.singularFile}.dto.ts`, dtoFile(n));
    create(`${src}/${n.singularFile}.events.ts`, eventsFile(n, randomUUID()));
    create(`test/${n.folder}/${n.folder}.e2e-spec.ts`, e2eSpecFile(n, args.plan));
    create(`test/${n.folder}/${n.folder}.event-triggers.ts`, triggersFile(n));
    registerInCode(n, args.plan);
    registerInSchema(n);
    registerInDocs(n, args.plan);
    const prisma = path.join(root, 'node_modules/prisma/build/index.js');
    run(process.execPath, [prisma, 'format'], 'prisma format');
    run(
      process.execPath,
      [path.join(root, 'scripts/db-migrate-create.mjs'), n.table, '--count', n.table],
      'The migration',
    );
    run(process.execPath, [prisma, 'generate'], 'prisma generate');
    const prettier = path.join(root, 'node_modules/prettier/bin/prettier.cjs');
    run(
      process.execPath,
      [
        prettier,
        '--log-level',
        'warn',
        '--write',
        ...[...touched.keys()].filter((f) => !f.endsWith('.prisma')),
      ],
      'prettier',
    );
  } catch (err) {
    putBack();
    for (const dir of readdirSync(path.join(root, 'prisma/migrations'))) {
      if (!before.has(dir))
        rmSync(path.join(root, 'prisma/migrations', dir), { recursive: true, force: true });
    }
    throw err;
  }
  const migration = readdirSync(path.join(root, 'prisma/migrations')).filter((dir) => !before.has(dir));
  say(
    `wrote ${[...touched.keys()].filter((f) => touched.get(f) === undefined).join(', ')}, prisma/migrations/${migration}/`,
  );
  say(`registered in ${[...touched.keys()].filter((f) => touched.get(f) !== undefined).join(', ')}`);
  say('next: npm run build && npm run clients:generate, then');
  say(
    `  npx jest test/${n.folder} src/prisma/table-owners.spec.ts test/delivery/events.e2e-spec.ts test/delivery/event-schemas.e2e-spec.ts`,
  );
}

try {
  main();
} catch (err) {
  process.stderr.write(`[module:new] ${err instanceof Failure ? err.message : err.stack}\n`);
  process.exit(1);
}
