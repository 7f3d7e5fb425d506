import type { DemoState } from './demo-state';

/** How WEBHOOK_ALLOW_INSECURE_TARGETS came to be what the API and the worker run with. */
export type InsecureTargets = 'set-by-start' | 'set' | 'off';

export interface BannerInput {
  /** e.g. http://localhost:3000/api */
  apiBase: string;
  state: DemoState | null;
  statePath: string;
  insecureTargets: InsecureTargets;
}

/** Single quotes for a POSIX shell: the commands are meant to be copied and pasted. */
function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The lines `npm start` prints once the API and the worker are both ready: where things are, who
 * can log in and in which community each login acts, the demo API key, and commands that work as
 * pasted (the tweet one ends at the local receiver when it runs).
 */
export function formatBanner(input: BannerInput): string[] {
  const { apiBase, state } = input;
  const rule = '-'.repeat(78);
  const lines = [
    rule,
    'Community Platform is ready: the API and the webhook worker are running (Ctrl-C stops both).',
    `  API   ${apiBase}`,
    `  Docs  ${apiBase}/docs   (OpenAPI JSON: ${apiBase}/docs-json)`,
    // the webhook portal is served beside /api, not under it
    `  Portal ${apiBase.replace(/\/api$/, '')}/portal   (webhook endpoints, delivery log; sign in with a demo login)`,
  ];
  if (!state) {
    lines.push(
      '  This database has no demo (demo-pro is missing): npm run db:seed -- --force adds it.',
      rule,
    );
    return lines;
  }
  const byslug = (slug: string) => state.communities.find((c) => c.slug === slug);
  const pro = byslug(state.apiKey.community)!;
  const home = byslug(state.defaultCommunity);
  const width = Math.max(...state.communities.map((c) => c.slug.length));
  lines.push(
    '',
    'Communities (webhook routes take the id):',
    ...state.communities.map(
      (c) =>
        `  ${c.slug.padEnd(width)}  ${c.id}  ${c.plan}${c.plan === 'FREE' ? ' (no webhooks on this plan)' : ''}`,
    ),
    '',
    `Demo logins, password ${state.password}; each user has that role in every demo community:`,
    ...state.logins.map((l) => `  ${l.email.padEnd(26)} ${l.role}`),
    `  ${state.platformAdmin.padEnd(26)} platform admin (a member of none)`,
    `A login that names no community acts in ${home ? `${home.slug} (${home.id})` : state.defaultCommunity},`,
    `the community each user joined first. To act in ${pro.slug}, name it (id or slug) at login:`,
    `  curl -s -X POST ${apiBase}/auth/login -H 'Content-Type: application/json' \\`,
    `    -d ${shellQuote(JSON.stringify({ email: state.logins[0].email, password: state.password, communityId: pro.id }))}`,
    '',
    `API key of ${pro.slug} (${pro.id}), acting as ${state.apiKey.actsAs}; send it as X-Api-Key:`,
    `  ${state.apiKey.key}`,
    `  (kept with the rest of this banner in ${input.statePath}; development data only)`,
    '',
    `The webhook portal of ${pro.slug} without a password (prints a single-use link):`,
    `  npm run cli -- portal:link --community ${pro.slug}`,
  );
  if (state.endpoint) {
    lines.push(
      '',
      `Webhooks: ${pro.slug} has endpoint ${state.endpoint.id} -> ${state.endpoint.url} (every event).`,
      '  1. In another terminal:  npm run receiver     (verifies each delivery with the endpoint secret)',
      '  2. Post a tweet with the API key; the worker delivers tweet.created to the receiver:',
      `  curl -s -X POST ${apiBase}/sdk/tweets -H ${shellQuote(`X-Api-Key: ${state.apiKey.key}`)} \\`,
      `    -H 'Content-Type: application/json' -d '{"content":"Hello, webhooks"}'`,
      '  npm run receiver -- --status 500 answers 500 instead, to watch the retries.',
    );
    if (input.insecureTargets === 'set-by-start') {
      lines.push(
        '  WEBHOOK_ALLOW_INSECURE_TARGETS=true was set by npm start for the API and the worker (not in',
        '  production, and only because it was unset), so an http://127.0.0.1 target is allowed.',
      );
    } else if (input.insecureTargets === 'off') {
      lines.push(
        '  WEBHOOK_ALLOW_INSECURE_TARGETS is false: deliveries to the local receiver will be refused.',
        '  Unset it (npm start then allows local targets) or set it to true.',
      );
    }
  }
  lines.push(rule);
  return lines;
}
