// The service's OpenAPI document, built from the repository's compiled service (dist/, `npm run build`
// at the root) without listening or touching a database: the same buildOpenApiDocument the API serves
// at /api/docs-json. clients/generate.mjs writes it to openapi.json (and checks the committed one);
// the integration script (../test-against-service.mjs) also compares openapi.json with the live route.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const repoRoot = new URL('../../../', import.meta.url);

/** The document as `JSON.stringify(document, null, 2)` plus a newline: the committed openapi.json. */
export async function buildServiceDocument() {
  const require = createRequire(new URL('package.json', repoRoot));
  // The document's info.version comes from npm_package_version: under `npm run` of another package
  // it would be that package's version, so it is set to the service's own, as `npm start` sets it.
  process.env.npm_package_version = JSON.parse(
    readFileSync(new URL('package.json', repoRoot), 'utf8'),
  ).version;
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
    throw new Error(
      'Cannot build the OpenAPI document from the service: run `npm run build` at the repository root first.',
      { cause: err },
    );
  }
  return JSON.stringify(document, null, 2) + '\n';
}
