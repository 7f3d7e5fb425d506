import { defineConfig } from 'prisma/config';
import { prismaEnginesDir, schemaEngineBinary } from './prisma/schema-engine-choice';

// Prisma's native schema engine where it can be had, else prisma/schema-engine-wasm.mjs, which answers
// the same JSON-RPC protocol with Prisma's own WebAssembly engine: PRISMA_SCHEMA_ENGINE decides
// (docs/architecture.md#prisma-and-its-schema-engine).
const engine = schemaEngineBinary(process.env, prismaEnginesDir());
if (engine) process.env.PRISMA_SCHEMA_ENGINE_BINARY = engine;

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
