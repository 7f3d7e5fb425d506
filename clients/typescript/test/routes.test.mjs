import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { CommunityPlatformClient } from '../dist/esm/index.js';
import { clientOperations, renderRoutes } from '../scripts/routes.mjs';
import { ok, scriptedFetch } from './fake-fetch.mjs';

const readJson = (path) => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'));
const document = readJson('../openapi.json');
const table = readJson('../../routes.json');

describe('routes', () => {
  it('has a method for every operation of the document, and it makes that call', async () => {
    // Where each method is comes from the generator's naming (scripts/routes.mjs, ../routes.json); which
    // call it makes, from the document. A method the generator skipped, or one calling another route, fails.
    const answer = () => ok({ items: [], hasMore: false, accessToken: 'a', refreshToken: 'r' });
    const fake = scriptedFetch(...Array.from({ length: 200 }, () => answer));
    const client = new CommunityPlatformClient({
      baseUrl: 'https://community.example.com',
      fetch: fake.fetch,
      accessToken: 't',
    });
    const checked = [];
    for (const op of clientOperations(document, table)) {
      const label = `${op.operationId} (${[op.group, ...op.name].join('.')})`;
      const method = [op.group, ...op.name].reduce((target, key) => target?.[key], client);
      assert.equal(typeof method, 'function', `${label} is not a method`);
      const args = op.pathParams.map((param) => param.schema?.enum?.[0] ?? 'ID');
      if (op.body) args.push({});
      // A route whose operation lists the Idempotency-Key header takes the caller's key last; no other
      // sends one (GETs, the anonymous auth routes, the portal-session exchange).
      const key = op.idempotencyKey ? `key-${op.operationId}` : undefined;
      if (key !== undefined) {
        if (op.queryParams.length > 0) args.push({});
        args.push({ idempotencyKey: key });
      }
      const before = fake.calls.length;
      const result = method(...args);
      if (typeof result?.pages === 'function') await result.pages().next();
      else await result;
      assert.equal(fake.calls.length, before + 1, `${label} made no call`);
      const call = fake.calls.at(-1);
      const pattern = new RegExp(`^${op.path.replace(/\{[^/]+?\}/g, '[^/?]+')}(\\?|$)`);
      assert.equal(call.method, op.method.toUpperCase(), label);
      assert.match(new URL(call.url).pathname, pattern, label);
      assert.equal(call.headers['idempotency-key'], key, label);
      checked.push(op.operationId);
    }
    const documented = Object.entries(document.paths)
      .filter(([path]) => !path.startsWith('/api/health')) // probes for orchestrators, not client routes
      .flatMap(([, item]) =>
        ['get', 'post', 'put', 'patch', 'delete'].filter((m) => item[m]).map((m) => item[m].operationId),
      );
    assert.deepEqual(checked.sort(), documented.sort());
  });

  it('src/routes.generated.ts is what the generator makes of the committed openapi.json', async () => {
    // The repository's prettier formats the generated file (clients/generate.mjs does the same).
    const prettier = createRequire(new URL('../../../package.json', import.meta.url))('prettier');
    const file = new URL('../src/routes.generated.ts', import.meta.url).pathname;
    const format = async (source) =>
      prettier.format(source, { ...(await prettier.resolveConfig(file)), filepath: file });
    assert.ok(
      (await renderRoutes(document, table, format)) === readFileSync(file, 'utf8'),
      'src/routes.generated.ts is out of date: run `npm run clients:generate` at the repository root',
    );
  });
});
