#!/usr/bin/env node
// Generates what both client libraries derive from the service's OpenAPI document, from the compiled
// service (dist/: run `npm run build` at the root first):
//   clients/typescript/openapi.json                            the document, as /api/docs-json serves it
//   clients/typescript/src/schema.ts                           its types (openapi-typescript; not committed)
//   clients/typescript/src/routes.generated.ts                 one typed method per operation
//   clients/python/src/community_platform/routes_generated.py  the same methods in Python
//   clients/python/src/community_platform/types_generated.py   one TypedDict per schema the routes use
//   clients/python/src/community_platform/events.py            one TypedDict per event type, and their list
// clients/routes.json names the methods where the operationId does not.
//   node clients/generate.mjs         (npm run clients:generate) rewrites them
//   node clients/generate.mjs --check (npm run clients:check) regenerates into a scratch folder and fails
//                                     when a committed file differs, writing nothing
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderRoutes } from './typescript/scripts/routes.mjs';
import { buildServiceDocument } from './typescript/scripts/service-document.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const typescriptDir = join(root, 'clients/typescript');
const pythonDir = join(root, 'clients/python');
const pythonPackage = join(pythonDir, 'src/community_platform');
const python = process.env.PYTHON ?? 'python3';
const check = process.argv.includes('--check');

// The repository's own prettier and its settings, so the generated TypeScript reads like the rest.
const prettier = createRequire(join(root, 'package.json'))('prettier');
const routesFile = join(typescriptDir, 'src/routes.generated.ts');
const format = async (source) =>
  prettier.format(source, { ...(await prettier.resolveConfig(routesFile)), filepath: routesFile });

function runOrFail(command, args, options) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.status !== 0) {
    throw new Error(`${[command, ...args].join(' ')} failed (${result.status ?? result.error?.message})`);
  }
}

async function main() {
  const documentText = await buildServiceDocument();
  const document = JSON.parse(documentText);
  const table = JSON.parse(readFileSync(join(root, 'clients/routes.json'), 'utf8'));
  const routesText = await renderRoutes(document, table, format);
  const scratch = mkdtempSync(join(tmpdir(), 'cp-clients-generate-'));
  try {
    const documentFile = check ? join(scratch, 'openapi.json') : join(typescriptDir, 'openapi.json');
    writeFileSync(documentFile, documentText);
    // The Python generator is the Python client's own (standard library only); it reads the document given.
    const pythonOut = check ? scratch : pythonPackage;
    runOrFail(python, [
      join(pythonDir, 'scripts/generate.py'),
      '--document',
      documentFile,
      '--out',
      pythonOut,
    ]);
    const outputs = [
      [join(typescriptDir, 'openapi.json'), documentText],
      [routesFile, routesText],
      ...['types_generated.py', 'routes_generated.py', 'events.py'].map((name) => [
        join(pythonPackage, name),
        readFileSync(join(pythonOut, name), 'utf8'),
      ]),
    ];
    if (check) {
      const stale = outputs.filter(([file, text]) => readFileSync(file, 'utf8') !== text);
      for (const [file] of stale) console.error(`${relative(root, file)} is not what the document generates`);
      if (stale.length > 0) {
        console.error('Run `npm run clients:generate` (after `npm run build`) and commit the result.');
        process.exitCode = 1;
        return;
      }
      console.log(`the clients' generated files match the service's document (${outputs.length} files)`);
      return;
    }
    writeFileSync(routesFile, routesText);
    // src/schema.ts: the request and response types (not committed; every client build makes it too).
    if (!existsSync(join(typescriptDir, 'node_modules/.bin/openapi-typescript'))) {
      console.log(
        'src/schema.ts not regenerated: run `npm ci` in clients/typescript (its build makes it too)',
      );
    } else {
      runOrFail('npm', ['run', '--silent', 'types'], { cwd: typescriptDir });
    }
    for (const [file] of outputs) console.log(`written: ${relative(root, file)}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
