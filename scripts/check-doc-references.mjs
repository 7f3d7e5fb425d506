#!/usr/bin/env node
// Keeps the repository readable on its own: every reference in it must lead to a heading inside it.
//   node scripts/check-doc-references.mjs [root]      (root defaults to this repository)
// Fails (exit 1, one `file:line: problem` per finding) on
//  1. references to documents or trackers a reader of the repository does not have: "spec §N",
//     "contract §N", "issue N", and a bare "§N" whose line names no document;
//  2. repository-internal references that do not resolve: markdown links `[text](<file>.md#<anchor>)` in
//     *.md files (relative to the file), and `<path>.md#<anchor>` (or `docs/<file>.md`) mentioned anywhere
//     else (relative to the root). The file must exist and the anchor must be the GitHub slug of one
//     of its headings.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));

const SCANNED = [
  'src',
  'test',
  'docs',
  'bench',
  'clients',
  'scripts',
  'prisma',
  'ops',
  'portal',
  '.ci',
  'README.md',
];
const SKIPPED_DIRS = new Set([
  'node_modules',
  'dist',
  '.git',
  'coverage',
  '__pycache__',
  'portal-screenshots',
]);
const SKIPPED_PATHS = new Set(['src/generated']);
const BINARY_EXTENSIONS = new Set([
  '.png',
  '.jpg',
  '.jpeg',
  '.gif',
  '.ico',
  '.webp',
  '.woff',
  '.woff2',
  '.wasm',
  '.pdf',
  '.zip',
  '.gz',
]);

// Applied migrations are history: Prisma keeps a checksum of each applied migration.sql, and
// `prisma migrate dev` asks to reset any database whose applied file changed. These lines predate
// the rule and stay as they are; any other line of any migration is checked like the rest.
const HISTORY = new Set([
  'prisma/migrations/20261123143000_delivery_durable_state/migration.sql:1',
  'prisma/migrations/20261124110000_webhook_portal_links/migration.sql:1',
]);

const OLD_FORMS = [
  { pattern: /\b(?:spec|contract)(?:'s)?\s*§\s*\d/i, problem: 'cites a document outside the repository' },
  { pattern: /\bissues?\s+#?\d+\b/i, problem: 'cites an issue tracker outside the repository' },
];
const SECTION_SIGN = /§\s*\d/;
/** a line that names its document: a markdown file or an RFC */
const NAMES_ITS_DOCUMENT = /\.md\b|\bRFC\s*\d+/;
const MARKDOWN_LINK = /!?\[((?:[^\]\\]|\\.)*)\]\(\s*<?([^)\s>]+)>?(?:\s+["'(][^)]*)?\)/g;
const LINK_DEFINITION = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$/;
const MENTION =
  /(?<![\w./-])((?:\.{1,2}\/)*(?:[\w-][\w.-]*\/)*[\w-][\w.-]*\.md)(?:#([\p{L}\p{M}\p{N}_-]+))?/gu;
const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/** GitHub's anchor for a heading's text: lower-case, punctuation dropped except '-' and '_', spaces to '-'. */
function githubSlug(headingText) {
  return headingText
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Lines of a markdown text with fenced code blocks blanked, so line numbers stay true. */
function outsideFences(lines) {
  let fence = null;
  return lines.map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marker) {
      fence = marker;
      return '';
    }
    if (fence !== null) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker)
        fence = null;
      return '';
    }
    return line;
  });
}

/** Every anchor a markdown file offers: its headings' slugs (repeats numbered as GitHub does) and explicit ids. */
function anchorsOf(markdown) {
  const lines = outsideFences(markdown.split('\n'));
  const anchors = new Set();
  const occurrences = new Map();
  // github-slugger: a repeated slug gets -1, -2, ... in the order the headings come
  const add = (text) => {
    const base = githubSlug(text);
    let slug = base;
    while (anchors.has(slug)) {
      occurrences.set(base, (occurrences.get(base) ?? 0) + 1);
      slug = `${base}-${occurrences.get(base)}`;
    }
    anchors.add(slug);
  };
  lines.forEach((line, i) => {
    const atx = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (atx) add(atx[1] ?? '');
    else if (line.trim() && !/^\s*[|>*+-]/.test(line) && /^ {0,3}(?:=+|-+)[ \t]*$/.test(lines[i + 1] ?? '')) {
      add(line);
    }
    for (const [, id] of line.matchAll(/<a\s+(?:name|id)=["']([^"']+)["']/g)) anchors.add(id);
  });
  return anchors;
}

function* filesUnder(path) {
  const rel = relative(root, path).split(sep).join('/');
  if (SKIPPED_PATHS.has(rel)) return;
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return;
  if (stat.isDirectory()) {
    for (const entry of readdirSync(path).sort()) {
      if (!SKIPPED_DIRS.has(entry)) yield* filesUnder(join(path, entry));
    }
  } else if (stat.isFile() && !BINARY_EXTENSIONS.has(extname(path).toLowerCase())) {
    yield path;
  }
}

const anchorCache = new Map();
function anchorsOfFile(path) {
  if (!anchorCache.has(path)) anchorCache.set(path, anchorsOf(readFileSync(path, 'utf8')));
  return anchorCache.get(path);
}

/** Why a reference to `target` (a path, `#anchor` or both, already split) does not resolve, or null. */
function unresolved(base, targetPath, anchor, fromFile) {
  const path = targetPath ? resolve(base, decodeURIComponent(targetPath)) : fromFile;
  if (!existsSync(path)) return `${targetPath} does not exist`;
  if (anchor === undefined || !path.endsWith('.md')) return null;
  if (!anchorsOfFile(path).has(decodeURIComponent(anchor))) {
    return `${targetPath || relative(root, fromFile)} has no heading whose anchor is #${anchor}`;
  }
  return null;
}

const findings = [];
let referenceCount = 0;
let fileCount = 0;

for (const start of SCANNED) {
  for (const file of filesUnder(join(root, start))) {
    const text = readFileSync(file, 'utf8');
    if (text.includes('\0')) continue;
    fileCount += 1;
    const rel = relative(root, file).split(sep).join('/');
    const isMarkdown = file.endsWith('.md');
    const lines = text.split('\n');
    const linkLines = isMarkdown ? outsideFences(lines) : lines;
    const report = (i, problem) => findings.push(`${rel}:${i + 1}: ${problem}`);

    lines.forEach((line, i) => {
      if (!HISTORY.has(`${rel}:${i + 1}`)) {
        for (const { pattern, problem } of OLD_FORMS) {
          const match = pattern.exec(line);
          if (match) report(i, `"${match[0]}" ${problem}: link a heading of the repository instead`);
        }
      }
      const withoutLinkTexts = isMarkdown ? line.replace(MARKDOWN_LINK, '') : line;
      if (
        SECTION_SIGN.test(withoutLinkTexts) &&
        !NAMES_ITS_DOCUMENT.test(line) &&
        !OLD_FORMS.some((f) => f.pattern.test(line))
      ) {
        report(
          i,
          `"${SECTION_SIGN.exec(withoutLinkTexts)[0]}" names no document: link its heading (<file>.md#<anchor>)`,
        );
      }

      let mentions = line;
      if (isMarkdown) {
        const linkLine = linkLines[i].replace(/`[^`]*`/g, '');
        const targets = [...linkLine.matchAll(MARKDOWN_LINK)].map((m) => m[2]);
        const definition = LINK_DEFINITION.exec(linkLine)?.[1];
        if (definition) targets.push(definition);
        for (const target of targets) {
          if (EXTERNAL.test(target)) continue;
          referenceCount += 1;
          const [targetPath, anchor] = target.split('#', 2);
          const problem = unresolved(dirname(file), targetPath, anchor, file);
          if (problem) report(i, `link ${target}: ${problem}`);
        }
        mentions = line.replace(MARKDOWN_LINK, '');
      }
      for (const [, path, anchor] of mentions.matchAll(MENTION)) {
        if (anchor === undefined && !path.startsWith('docs/')) continue;
        referenceCount += 1;
        const problem = unresolved(root, path, anchor, file);
        if (problem) report(i, `${path}${anchor === undefined ? '' : `#${anchor}`}: ${problem}`);
      }
    });
  }
}

if (findings.length > 0) {
  console.error(
    `Doc references: ${findings.length} problem(s) (references must lead to headings inside the repository):`,
  );
  for (const finding of findings) console.error(`  ${finding}`);
  process.exit(1);
}
console.log(
  `Doc references: ${referenceCount} references in ${fileCount} files, all inside the repository and resolving`,
);
