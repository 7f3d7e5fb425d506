// The OpenAPI document the client's types come from, built from the repository's compiled service
// (dist/, `npm run build` at the root) without listening or touching a database: the same
// buildOpenApiDocument the API serves at /api/docs-json.
//   node scripts/openapi.mjs write   rewrites openapi.json (then `npm run types` regenerates src/schema.ts)
//   node scripts/openapi.mjs check   fails when the committed openapi.json differs from the service's
// The integration script (../test-against-service.mjs) also compares openapi.json with the live route.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isDeepStrictEqual } from 'node:util';

const mode = process.argv[2];
if (mode !== 'write' && mode !== 'check') {
  console.error('usage: node scripts/openapi.mjs write|check');
  process.exit(2);
}

const repoRoot = new URL('../../../', import.meta.url);
const documentFile = new URL('../openapi.json', import.meta.url);
const require = createRequire(new URL('package.json', repoRoot));

// The document's info.version comes from npm_package_version: under `npm run` here that would be
// this package's version, so it is set to the service's own, as `npm start` at the root sets it.
process.env.npm_package_version = JSON.parse(readFileSync(new URL('package.json', repoRoot), 'utf8')).version;
process.env.LOG_LEVEL = 'silent';

let document;
try {
  const { NestFactory } = require('@nestjs/core');
  const { AppModule } = require('./dist/app.module.js');
  const { buildOpenApiDocument, createFastifyAdapter } = require('./dist/bootstrap/http-app.js');
  // Creating the application wires the modules without connecting: nothing is initialised or listened on.
  const app = await NestFactory.create(AppModule, createFastifyAdapter({ trustProxy: false }), {
    logger: false,
    abortOnError: false,
  });
  app.setGlobalPrefix('api');
  document = buildOpenApiDocument(app);
  await app.close();
} catch (err) {
  console.error(
    'Cannot build the OpenAPI document from the service: run `npm run build` at the repository root first.',
  );
  console.error(err);
  process.exit(1);
}

if (mode === 'write') {
  writeFileSync(documentFile, JSON.stringify(document, null, 2) + '\n');
  console.log(`openapi.json written: ${Object.keys(document.paths).length} paths`);
} else {
  const committed = JSON.parse(readFileSync(documentFile, 'utf8'));
  if (!isDeepStrictEqual(committed, JSON.parse(JSON.stringify(document)))) {
    console.error(
      "clients/typescript/openapi.json differs from the service's document: run `npm run openapi` in clients/typescript and commit it.",
    );
    process.exit(1);
  }
  console.log("openapi.json matches the service's document");
}
process.exit(0);
