import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { nativeSchemaEngineInstalled, schemaEngineBinary, WASM_SCHEMA_ENGINE } from './schema-engine-choice';

describe('which schema engine the Prisma CLI runs', () => {
  let withNative: string;
  let withoutNative: string;

  beforeAll(() => {
    withNative = mkdtempSync(path.join(tmpdir(), 'engines-native-'));
    writeFileSync(path.join(withNative, 'schema-engine-debian-openssl-3.0.x'), '');
    withoutNative = mkdtempSync(path.join(tmpdir(), 'engines-none-'));
    // what @prisma/engines ships without its download: scripts and typings, no binary
    writeFileSync(path.join(withoutNative, 'package.json'), '{}');
    writeFileSync(path.join(withoutNative, 'schema-engine-path.d.ts'), '');
  });
  afterAll(() => {
    rmSync(withNative, { recursive: true, force: true });
    rmSync(withoutNative, { recursive: true, force: true });
  });

  it('finds the native binary only when its install script put it there', () => {
    expect(nativeSchemaEngineInstalled(withNative)).toBe(true);
    expect(nativeSchemaEngineInstalled(withoutNative)).toBe(false);
    expect(nativeSchemaEngineInstalled(undefined)).toBe(false);
    expect(nativeSchemaEngineInstalled(path.join(withoutNative, 'missing'))).toBe(false);
  });

  it('auto (the default): native when installed, else the WebAssembly stand-in', () => {
    expect(schemaEngineBinary({}, withNative)).toBeUndefined();
    expect(schemaEngineBinary({ PRISMA_SCHEMA_ENGINE: 'auto' }, withNative)).toBeUndefined();
    expect(schemaEngineBinary({}, withoutNative)).toBe(WASM_SCHEMA_ENGINE);
  });

  it('wasm and native are explicit, whatever is installed', () => {
    expect(schemaEngineBinary({ PRISMA_SCHEMA_ENGINE: 'wasm' }, withNative)).toBe(WASM_SCHEMA_ENGINE);
    expect(schemaEngineBinary({ PRISMA_SCHEMA_ENGINE: 'native' }, withoutNative)).toBeUndefined();
  });

  it('an explicit PRISMA_SCHEMA_ENGINE_BINARY wins', () => {
    expect(
      schemaEngineBinary(
        { PRISMA_SCHEMA_ENGINE_BINARY: '/opt/engine', PRISMA_SCHEMA_ENGINE: 'wasm' },
        withNative,
      ),
    ).toBe('/opt/engine');
  });

  it('refuses anything else, naming the variable', () => {
    expect(() => schemaEngineBinary({ PRISMA_SCHEMA_ENGINE: 'fast' }, withNative)).toThrow(
      "PRISMA_SCHEMA_ENGINE must be native, wasm or auto, not 'fast'",
    );
  });

  it('the stand-in is the file beside the chooser', () => {
    expect(path.basename(WASM_SCHEMA_ENGINE)).toBe('schema-engine-wasm.mjs');
  });
});
