// Installs the client the way its README's "Install" section says, into an empty project, and
// compiles and runs a script against it: the package a user gets, not this folder's sources.
//
//   cd clients/typescript && npm install && node scripts/install-check.mjs
//
// Packs the folder (npm runs `prepare`, the build), installs the tarball into a scratch project
// (its one dependency, standardwebhooks, from the registry), compiles a TypeScript file with
// `moduleResolution: NodeNext` using this folder's own TypeScript, then runs it as ES module and
// requires the package as CommonJS. Fails on the first step that does not work.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = join(here, 'node_modules', 'typescript', 'bin', 'tsc');
const scratch = mkdtempSync(join(tmpdir(), 'cp-client-install-'));
const run = (command, args, cwd) =>
  execFileSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });

try {
  // npm runs `prepare` (the build) first, which prints to stdout: the tarball is found by its name
  run('npm', ['pack', '--pack-destination', scratch], here);
  const tarball = join(
    scratch,
    readdirSync(scratch).find((name) => name.endsWith('.tgz')),
  );

  const app = join(scratch, 'app');
  run('mkdir', ['-p', app], scratch);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  run('npm', ['install', '--no-audit', '--no-fund', tarball], app);
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        outDir: 'out',
        skipLibCheck: false,
      },
      files: ['main.ts'],
    }),
  );
  // the README's quick start and webhook check, typed against the installed declarations
  writeFileSync(
    join(app, 'main.ts'),
    `import { CommunityPlatformClient, verifyWebhook, WebhookVerificationError } from '@community-platform/client';
import type { WebhookEvent } from '@community-platform/client';

const client = new CommunityPlatformClient({ baseUrl: 'https://community.example.com', apiKey: 'cpk_example' });
const created: (content: string) => Promise<unknown> = (content) => client.tweets.create({ content });
const check = (headers: Record<string, string>, body: string): WebhookEvent<'tweet.created'> | null => {
  try {
    const event = verifyWebhook(headers, body, ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw']);
    return event.type === 'tweet.created' ? event : null;
  } catch (err) {
    if (err instanceof WebhookVerificationError) return null;
    throw err;
  }
};
console.log(typeof created, typeof check, client instanceof CommunityPlatformClient);
`,
  );
  run(process.execPath, [tsc, '-p', 'tsconfig.json'], app);
  const esm = run(process.execPath, ['out/main.js'], app).trim();
  if (esm !== 'function function true') throw new Error(`the compiled script printed: ${esm}`);
  const cjs = run(
    process.execPath,
    ['-e', "console.log(typeof require('@community-platform/client').CommunityPlatformClient)"],
    app,
  ).trim();
  if (cjs !== 'function') throw new Error(`require() of the package gave: ${cjs}`);
  const version = JSON.parse(
    readFileSync(join(app, 'node_modules', '@community-platform', 'client', 'package.json'), 'utf8'),
  ).version;
  console.log(
    `the packed client ${version} installs into an empty project, compiles (NodeNext) and runs as ESM and CJS`,
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
