import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { v8MemoryFlags } from './memory-flags';

const source = (entry: string) => readFileSync(join(__dirname, '..', entry), 'utf8');

describe('V8 memory settings (bench/README.md, "Memory")', () => {
  it.each([
    ['main.ts', 'api'],
    ['worker.ts', 'worker'],
  ])('%s applies its own (%s) as its first import and first statement', (entry, role) => {
    const text = source(entry);
    expect(text.match(/^import\s[^;]*?from\s+'([^']+)';/m)?.[1]).toBe('./bootstrap/memory-flags');
    // the first line that is not an import, a comment or blank
    const firstStatement = text
      .split('\n')
      .find((l) => l.trim() !== '' && !/^(import\s|\/\/|\s*[}'"]|\s+\w+,?$)/.test(l));
    expect(firstStatement).toBe(`applyV8MemoryFlags('${role}');`);
  });

  it('keeps the API’s old generation tighter than the worker’s (the API needs it for 200 MiB)', () => {
    const growth = (role: 'api' | 'worker') =>
      Number(
        v8MemoryFlags(role)
          .find((f) => f.startsWith('--heap-growing-percent='))
          ?.split('=')[1],
      );
    expect(v8MemoryFlags('api')).toContain('--liftoff-only');
    expect(v8MemoryFlags('worker')).toContain('--liftoff-only');
    expect(growth('api')).toBeLessThan(growth('worker'));
  });
});
