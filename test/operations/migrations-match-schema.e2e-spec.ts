import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { createIsolatedDatabase, type IsolatedDatabase } from '../utils/isolated-database';

/**
 * `npm run db:migrate:create` (scripts/db-migrate-create.mjs) writes the difference between a database
 * holding every migration and prisma/schema.prisma: that difference must be empty before anyone edits the
 * schema, or every new migration carries changes its author never made (docs/adding-a-module.md#the-commands).
 * The diff reads the catalog of a database with CHECK constraints, which also proves the schema engine
 * (native, or its wasm stand-in) introspects them.
 */
describe('the migrations and prisma/schema.prisma', () => {
  let db: IsolatedDatabase;
  beforeAll(async () => {
    db = await createIsolatedDatabase('schema_diff');
  }, 120_000);
  afterAll(async () => {
    await db?.drop();
  });

  it('describe the same database: the diff from one to the other is empty', () => {
    const root = resolve(__dirname, '..', '..');
    const diff = spawnSync(
      process.execPath,
      [
        resolve(root, 'node_modules/prisma/build/index.js'),
        'migrate',
        'diff',
        '--from-config-datasource',
        '--to-schema',
        'prisma/schema.prisma',
        '--script',
        '--exit-code',
      ],
      {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, DATABASE_URL: db.url, DATABASE_DIRECT_URL: db.url },
      },
    );
    // --exit-code: 0 empty, 2 a difference (printed), 1 an error
    expect({ status: diff.status, out: diff.stdout, err: diff.stderr }).toEqual({
      status: 0,
      out: expect.stringContaining('-- This is an empty migration.'),
      err: expect.any(String),
    });
  }, 60_000);
});
