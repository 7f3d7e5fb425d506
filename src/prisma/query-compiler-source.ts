/**
 * The module Prisma's client imports its query compiler from: one export, the WebAssembly binary as
 * base64 text (src/generated/prisma/internal/class.ts, `getQueryCompilerWasmModule`).
 */
const COMPILER_SOURCE = /[\\/]@prisma[\\/]client[\\/]runtime[\\/]query_compiler_[^\\/]*\.wasm-base64\.js$/;

/**
 * Lets the query compiler's base64 text be collected once the compiler is built. Prisma builds it on
 * connect and keeps the instance for the life of the process, so nothing reads the text again, yet
 * require's cache and the importing module's `children` would hold it (megabytes of string) for
 * good (docs/architecture.md#what-each-process-loads). Should Prisma ever import the module again, it
 * is read from disk afresh. Returns how many modules were let go (none under jest, whose `require`
 * has no cache of its own to hold them).
 */
export function releaseQueryCompilerSource(cache: NodeJS.Dict<NodeModule> = require.cache): number {
  const released = Object.keys(cache).filter((path) => COMPILER_SOURCE.test(path));
  for (const path of released) {
    const loaded = cache[path];
    delete cache[path];
    for (const parent of Object.values(cache)) {
      const at = parent?.children.indexOf(loaded!) ?? -1;
      if (at >= 0) parent!.children.splice(at, 1);
    }
  }
  return released.length;
}
