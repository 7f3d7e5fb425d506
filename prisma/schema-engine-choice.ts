import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** What PRISMA_SCHEMA_ENGINE may say; unset means `auto`. */
export type SchemaEngineSetting = 'native' | 'wasm' | 'auto';

/** The WebAssembly stand-in for Prisma's native schema engine, beside this file. */
export const WASM_SCHEMA_ENGINE = path.join(__dirname, 'schema-engine-wasm.mjs');

/** Whether Prisma's native schema engine binary (`schema-engine-<platform>`) is in `enginesDir`. */
export function nativeSchemaEngineInstalled(enginesDir: string | undefined): boolean {
  if (!enginesDir || !existsSync(enginesDir)) return false;
  return readdirSync(enginesDir).some((file) => /^schema-engine-(?!.*\.(d\.ts|js|map)$)/.test(file));
}

/**
 * The schema engine the Prisma CLI should run, as a path for PRISMA_SCHEMA_ENGINE_BINARY, or undefined for
 * Prisma's own native engine. An explicit PRISMA_SCHEMA_ENGINE_BINARY always wins. PRISMA_SCHEMA_ENGINE:
 * - `native`: Prisma's native engine (the CLI downloads it at first use when it is missing);
 * - `wasm`: the stand-in, for machines that cannot download the native engine (CI here sets it);
 * - `auto` or unset: the native engine when its install script put it in @prisma/engines (as in the
 *   Docker build), else the stand-in, so `npm install && npm start` works where nothing but the npm
 *   registry is reachable (npm 11 does not run that script unless it is approved, and the download fails there).
 */
export function schemaEngineBinary(
  env: NodeJS.ProcessEnv,
  enginesDir: string | undefined,
): string | undefined {
  if (env.PRISMA_SCHEMA_ENGINE_BINARY) return env.PRISMA_SCHEMA_ENGINE_BINARY;
  const setting = (env.PRISMA_SCHEMA_ENGINE || 'auto') as SchemaEngineSetting;
  if (!['native', 'wasm', 'auto'].includes(setting))
    throw new Error(`PRISMA_SCHEMA_ENGINE must be native, wasm or auto, not '${setting}'`);
  if (setting === 'native') return undefined;
  if (setting === 'wasm') return WASM_SCHEMA_ENGINE;
  return nativeSchemaEngineInstalled(enginesDir) ? undefined : WASM_SCHEMA_ENGINE;
}

/** Where @prisma/engines is installed, or undefined when it is not. */
export function prismaEnginesDir(): string | undefined {
  try {
    return path.dirname(require.resolve('@prisma/engines/package.json'));
  } catch {
    return undefined;
  }
}
