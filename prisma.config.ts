import path from 'node:path';
import { defineConfig } from 'prisma/config';

// Prisma 7's CLI downloads a native schema-engine binary, which these machines cannot reach.
// prisma/schema-engine-wasm.mjs answers the same JSON-RPC protocol with Prisma's own WebAssembly
// engine (see the README); an explicit PRISMA_SCHEMA_ENGINE_BINARY still wins.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.join(__dirname, 'prisma', 'schema-engine-wasm.mjs');

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  // migrations hold a session advisory lock: behind PgBouncer they need PostgreSQL itself
  datasource: {
    url:
      process.env.DATABASE_DIRECT_URL ||
      process.env.DATABASE_URL ||
      'postgresql://postgres@127.0.0.1:5432/community_platform',
  },
});
