import { releaseQueryCompilerSource } from './query-compiler-source';

function loaded(id: string, children: NodeModule[] = []): NodeModule {
  return { id, filename: id, children } as unknown as NodeModule;
}

describe('releaseQueryCompilerSource', () => {
  it('drops the base64 module from the cache and from its importer’s children, and nothing else', () => {
    const source = loaded(
      '/app/node_modules/@prisma/client/runtime/query_compiler_small_bg.postgresql.wasm-base64.js',
    );
    const runtime = loaded('/app/node_modules/@prisma/client/runtime/query_compiler_small_bg.postgresql.js');
    const client = loaded('/app/dist/generated/prisma/internal/class.js', [runtime, source]);
    const cache: NodeJS.Dict<NodeModule> = {
      [client.id]: client,
      [runtime.id]: runtime,
      [source.id]: source,
    };

    expect(releaseQueryCompilerSource(cache)).toBe(1);

    expect(Object.keys(cache)).toEqual([client.id, runtime.id]);
    expect(client.children).toEqual([runtime]);
  });

  it('finds the fast build too, and does nothing when no compiler was loaded', () => {
    const fast = loaded(
      'C:\\app\\node_modules\\@prisma\\client\\runtime\\query_compiler_fast_bg.postgresql.wasm-base64.js',
    );
    const cache: NodeJS.Dict<NodeModule> = { [fast.id]: fast };
    expect(releaseQueryCompilerSource(cache)).toBe(1);
    expect(cache).toEqual({});
    expect(releaseQueryCompilerSource(cache)).toBe(0);
  });
});
