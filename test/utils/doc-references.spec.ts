import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

// scripts/check-doc-references.mjs run on a repository of its own making: what it accepts (the GitHub
// slug of each heading) and what it reports, file by file and line by line.
const script = join(__dirname, '..', '..', 'scripts', 'check-doc-references.mjs');

function repository(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'doc-references-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function check(files: Record<string, string>): { status: number | null; findings: string[] } {
  const root = repository(files);
  try {
    const run = spawnSync(process.execPath, [script, root], { encoding: 'utf8' });
    const findings = run.stderr
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => /^[\w./-]+:\d+: /.test(line));
    return { status: run.status, findings };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

// This file is scanned too: the forms the script refuses, and paths that lead nowhere in this
// repository, are assembled here so that the file does not contain them itself.
const md = (path: string): string => `${path}.md`;
const cite = (document: string, number: string): string => `${document} \u00a7${number}`;
const issue = (number: string): string => ['issue', number].join(' ');
const GUIDE = md('docs/guide');

const guide = [
  '# Guide',
  '## 5. Webhooks',
  '## Tenancy, roles & plans',
  '### `X-Api-Key` header',
  '## Queue view: a portal page, not Bull Board',
  '## snake_case names',
  '## Café → résumé',
  '## [Linked](https://example.com) heading',
  '## Notes',
  '## Notes',
  'Setext heading',
  '--------------',
  '```md',
  '## Fenced, not a heading',
  '```',
].join('\n');

describe('check-doc-references', () => {
  it('accepts links and mentions whose anchor is the GitHub slug of a heading', () => {
    const result = check({
      [GUIDE]: guide,
      [md('README')]: [
        `[\u00a75](${GUIDE}#5-webhooks), [plans](${GUIDE}#tenancy-roles--plans)`,
        `[header](${GUIDE}#x-api-key-header) and [queue](./${GUIDE}#queue-view-a-portal-page-not-bull-board)`,
        `[names](${GUIDE}#snake_case-names), [café](${GUIDE}#café--résumé)`,
        `[linked](${GUIDE}#linked-heading), [again](${GUIDE}#notes-1), [setext](${GUIDE}#setext-heading)`,
        `[outside](https://example.com/${md('x')}#anything), [self](#quick-start), [file](${GUIDE})`,
        '## Quick start',
      ].join('\n'),
      'src/a.ts': `/** Resend (${GUIDE}#5-webhooks; ${md('README')}#quick-start). */\n/** RFC 1035 \u00a74.1.1 codes */\n`,
      [md('docs/other')]: `See [the guide](${md('guide')}#notes) and, as a path, \`${GUIDE}#notes\`.\n`,
      // never read: dependencies, builds and the generated client
      'node_modules/x/index.js': `// ${issue('9')}, ${cite('contract', '1')}\n`,
      'dist/main.js': `// ${cite('spec', '5')}\n`,
      'src/generated/client.ts': `// (${issue('15')})\n`,
    });
    expect(result).toEqual({ status: 0, findings: [] });
  });

  it('reports every outside citation and every reference that does not resolve, by file and line', () => {
    const result = check({
      [GUIDE]: guide,
      'src/a.ts': `// ok\n// The body (${cite('contract', '1')}).\n`,
      'test/b.spec.ts': `describe('tenancy (${cite('spec', '5')})', () => {});\n// Fairness (${issue('10')} \u00a74)\n`,
      'src/c.ts': '/** The success body (\u00a71). */\n',
      'src/d.ts': `// ${GUIDE}#no-such-heading and ${md('docs/missing')}#webhooks and ${md('docs/gone')}\n`,
      [md('docs/other')]:
        `[fenced](${md('guide')}#fenced-not-a-heading)\n\n[missing](./${md('nope')}) [case](${md('guide')}#Notes)\n`,
      [md('README')]: `A page of the portal (${issue('15')}).\n`,
    });
    expect(result.status).toBe(1);
    expect(result.findings.map((finding) => finding.replace(/: .*/, ''))).toEqual([
      'src/a.ts:2',
      'src/c.ts:1',
      'src/d.ts:1',
      'src/d.ts:1',
      'src/d.ts:1',
      'test/b.spec.ts:1',
      'test/b.spec.ts:2',
      `${md('docs/other')}:1`,
      `${md('docs/other')}:3`,
      `${md('docs/other')}:3`,
      `${md('README')}:1`,
    ]);
    expect(result.findings).toEqual(
      expect.arrayContaining([
        expect.stringContaining(`"${cite('contract', '1')}" cites a document outside the repository`),
        expect.stringContaining(`"${cite('spec', '5')}" cites a document outside the repository`),
        expect.stringContaining(`"${issue('10')}" cites an issue tracker outside the repository`),
        expect.stringContaining('"\u00a71" names no document'),
        expect.stringContaining(`${GUIDE} has no heading whose anchor is #no-such-heading`),
        expect.stringContaining(`${md('docs/missing')} does not exist`),
        expect.stringContaining(`${md('docs/gone')} does not exist`),
        expect.stringContaining(`${md('guide')} has no heading whose anchor is #fenced-not-a-heading`),
        expect.stringContaining(`${md('guide')} has no heading whose anchor is #Notes`),
        expect.stringContaining(`./${md('nope')} does not exist`),
      ]),
    );
  });
});
