import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The first module an entry point loads, as its compiled `require` order has it. */
function firstImport(entry: string): string | undefined {
  const source = readFileSync(join(__dirname, '..', entry), 'utf8');
  return source.match(/^import\s+(?:[^'"]*from\s+)?'([^']+)';/m)?.[1];
}

describe('V8 memory settings (bench/README.md, "Memory")', () => {
  it.each(['main.ts', 'worker.ts'])(
    '%s applies them before any other module is loaded, so every way of starting it gets them',
    (entry) => {
      expect(firstImport(entry)).toBe('./bootstrap/memory-flags');
    },
  );
});
