#!/usr/bin/env node
// Writes the OpenAPI document of the compiled service (dist/, `npm run build`) to the file given, as
// /api/docs-json serves it, without listening or touching a database. The e2e suite validates every
// answer against it (test/setup/global-setup.ts) and CI lints it with redocly (.ci/run).
//   node scripts/openapi-document.js <file.json>
/* eslint-disable @typescript-eslint/no-require-imports -- a plain CommonJS script over dist/ */
'use strict';

const { readFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');

async function main() {
  const file = process.argv[2];
  if (!file) throw new Error('usage: node scripts/openapi-document.js <file.json>');
  const root = path.resolve(__dirname, '..');
  process.env.npm_package_version ??= JSON.parse(
    readFileSync(path.join(root, 'package.json'), 'utf8'),
  ).version;
  process.env.LOG_LEVEL = 'silent';
  const { NestFactory } = require('@nestjs/core');
  const { AppModule } = require(path.join(root, 'dist/app.module.js'));
  const { buildOpenApiDocument, createFastifyAdapter } = require(
    path.join(root, 'dist/bootstrap/http-app.js'),
  );
  // Creating the application wires the modules without connecting: nothing is initialised or listened on.
  const app = await NestFactory.create(AppModule, createFastifyAdapter({ trustProxy: false }), {
    logger: false,
    abortOnError: false,
  });
  app.setGlobalPrefix('api');
  const document = buildOpenApiDocument(app);
  await app.close();
  writeFileSync(file, JSON.stringify(document, null, 2) + '\n');
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error('Cannot build the OpenAPI document from dist/ (run `npm run build` first):', err);
    process.exit(1);
  },
);
