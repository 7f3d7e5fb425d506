import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  LAUNCH_NODE_FLAGS,
  MALLOC_ENVIRONMENT,
  missingMallocEnvironment,
  v8MemoryFlags,
} from './memory-flags';

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

  it('collects the young generation on the main thread alone, in both processes', () => {
    expect(v8MemoryFlags('api')).toContain('--no-parallel-scavenge');
    expect(v8MemoryFlags('worker')).toContain('--no-parallel-scavenge');
  });

  describe('node flags, which only a launcher can give', () => {
    const root = join(__dirname, '..', '..');
    const repoFile = (file: string) => readFileSync(join(root, file), 'utf8');

    const semiSpaceMiB = (role: 'api' | 'worker') =>
      Number(LAUNCH_NODE_FLAGS[role].find((f) => f.startsWith('--max-semi-space-size='))?.split('=')[1]);

    it('both cap V8’s young generation (16 MiB semi-spaces), the API the lower', () => {
      expect(semiSpaceMiB('worker')).toBeLessThan(16);
      expect(semiSpaceMiB('api')).toBeLessThan(semiSpaceMiB('worker'));
    });

    it.each([
      ['start:api', 'api', 'dist/main.js'],
      ['start:worker', 'worker', 'dist/worker.js'],
    ] as const)('npm run %s passes them before the entry file', (script, role, entry) => {
      const scripts = (JSON.parse(repoFile('package.json')) as { scripts: Record<string, string> }).scripts;
      expect(scripts[script]).toContain(` node ${LAUNCH_NODE_FLAGS[role].join(' ')} ${entry}`);
    });

    it('the Docker image runs the API with them', () => {
      const command = ['node', ...LAUNCH_NODE_FLAGS.api, 'dist/main.js'].map((part) => `"${part}"`);
      expect(repoFile('Dockerfile')).toContain(`CMD [${command.join(', ')}]`);
    });

    it('docker-compose.yml runs the API and the worker with them', () => {
      const compose = repoFile('docker-compose.yml');
      expect(compose).toContain(`exec node ${LAUNCH_NODE_FLAGS.api.join(' ')} dist/main.js'`);
      const worker = ['node', ...LAUNCH_NODE_FLAGS.worker, 'dist/worker.js'].map((part) => `'${part}'`);
      expect(compose).toContain(`command: [${worker.join(', ')}]`);
    });

    it('npm start passes each child its own', () => {
      expect(repoFile('scripts/start.js')).toContain(
        'spawn(process.execPath, [...LAUNCH_NODE_FLAGS[role], path.join(dist, file)]',
      );
    });
  });

  describe('glibc malloc settings, which only a launcher can give', () => {
    const root = join(__dirname, '..', '..');
    const repoFile = (file: string) => readFileSync(join(root, file), 'utf8');
    const pairs = Object.entries(MALLOC_ENVIRONMENT).map(([name, value]) => `${name}=${value}`);

    it.each(['start:api', 'start:worker'])('npm run %s sets them', (script) => {
      const scripts = (JSON.parse(repoFile('package.json')) as { scripts: Record<string, string> }).scripts;
      for (const pair of pairs) expect(scripts[script]).toContain(`${pair} node `);
    });

    it('the Docker image sets them', () => {
      for (const pair of pairs) expect(repoFile('Dockerfile')).toContain(`ENV ${pair}\n`);
    });

    it('npm start gives them to both children, under what the caller set', () => {
      expect(repoFile('scripts/start.js')).toContain('env: { ...MALLOC_ENVIRONMENT, ...process.env }');
    });

    it('names what a process was started without', () => {
      expect(missingMallocEnvironment({})).toEqual(pairs);
      expect(missingMallocEnvironment(Object.fromEntries(Object.entries(MALLOC_ENVIRONMENT)))).toEqual([]);
      // an operator's own value is theirs
      expect(missingMallocEnvironment({ MALLOC_MMAP_THRESHOLD_: '4194304' })).toEqual([]);
    });
  });
});
