// The browser test's harness (scripts/portal-browser-test.mjs): its ports, environment and database, the
// compiled API and worker it starts, calls to the API, the session it watches, and the receiver that can fail.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const { fetch } = globalThis;

export const root = resolve(import.meta.dirname, '..', '..');
export const API_PORT = Number(process.env.PORTAL_TEST_PORT ?? 3600);
export const RECEIVER_PORT = API_PORT + 1;
export const base = `http://127.0.0.1:${API_PORT}`;
export const shots = join(root, 'portal-screenshots');
export const database = `cp_portal_browser_${process.pid}`;
export const admin = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
export const databaseUrl = admin.replace(/\/[^/]*$/, `/${database}`);
export const stateDir = mkdtempSync(join(tmpdir(), 'portal-browser-'));
export const children = [];
/**
 * Whether the receiver fails, and what it answers then (a test makes it long, to see only its beginning shown):
 * the flows set both.
 */
export const receiverState = { failing: false, failingBody: '{"error":"receiver is down for the test"}' };
export const received = [];

export function sql(statement) {
  execFileSync('psql', [admin, '-qc', statement], { stdio: 'inherit' });
}

export const env = {
  ...process.env,
  NODE_ENV: 'development',
  DATABASE_URL: databaseUrl,
  REDIS_KEY_PREFIX: `cp-portal-browser-${process.pid}`,
  PORT: String(API_PORT),
  METRICS_PORT: '0',
  PUBLIC_BASE_URL: base,
  WEBHOOK_ALLOW_INSECURE_TARGETS: 'true',
  // no automatic retry during the run: the resend is what brings the SUCCESS
  WEBHOOK_RETRY_SCHEDULE: '1h',
  // a replay the page creates stays queued (no worker looks for replays during the run), so it can be cancelled
  WEBHOOK_REPLAY_INTERVAL: '1h',
  DEMO_STATE_FILE: join(stateDir, 'demo.json'),
  // short-lived access tokens: the portal must renew them with its refresh token during the run
  JWT_EXPIRES_IN: '8s',
  LOG_LEVEL: 'warn',
};

export function start(script) {
  const child = spawn(process.execPath, [join(root, 'dist', script)], {
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  children.push(child);
  return child;
}

export async function waitFor(check, what, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function apiCall(method, path, token, body, apiKey) {
  const res = await fetch(`${base}/api${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(apiKey ? { 'x-api-key': apiKey } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const reply = await res.json();
  // every call here expects success: a refusal stops the run with its status and code, not a later undefined
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status} ${reply?.code ?? ''}`);
  return reply.data;
}

/**
 * The test's own Bearer token for its calls to the API, from a login of its own, renewed before the run's
 * short-lived access tokens (JWT_EXPIRES_IN) run out: a step may take longer than they live on a slow machine.
 */
export function ownLogin(credentials) {
  let own = { token: null, at: 0 };
  return async () => {
    if (Date.now() - own.at > 5_000) {
      const pair = await apiCall('POST', '/auth/login', undefined, credentials);
      own = { token: pair.accessToken, at: Date.now() };
    }
    return own.token;
  };
}

/** The status of a call made with a token captured from the page (the page's own calls aside). */
export async function statusWith(method, path, token, body) {
  const res = await fetch(`${base}/api${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.status;
}

/**
 * What a page's session sends and receives, as someone reading its traffic would capture it: the
 * last Bearer token it sent, the first one, the last refresh token it was given and how many
 * renewals it made.
 */
export function watchSession(page) {
  const seen = { first: null, token: null, refreshToken: null, renewals: 0 };
  page.on('request', (request) => {
    const authorization = request.headers().authorization;
    if (!request.url().startsWith(`${base}/api/`) || !authorization) return;
    seen.token = authorization.replace(/^Bearer /, '');
    seen.first ??= seen.token;
  });
  page.on('response', async (response) => {
    const path = new URL(response.url()).pathname;
    if (response.status() !== 200 || !['/api/auth/login', '/api/auth/refresh-token'].includes(path)) return;
    seen.refreshToken = (await response.json()).data.refreshToken;
    if (path === '/api/auth/refresh-token') seen.renewals++;
  });
  return seen;
}

/** Clicks Sign out and checks that the page called the logout route and showed the sign-in form. */
export async function signOutOf(page) {
  const loggedOut = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/auth/logout');
  await page.getByRole('button', { name: 'Sign out' }).click();
  const status = (await loggedOut).status();
  if (status !== 200) throw new Error(`Sign out: POST /api/auth/logout answered ${status}`);
  await page.getByText('You are signed out.').waitFor();
  await page.getByLabel('E-mail').waitFor();
}

/** The custom headers' values the run creates; the page must only ever show them masked. */

export const STORAGE_KEY = 'webhook-portal-session';

/** What the page keeps in the browser: the portal session in sessionStorage, nothing else anywhere. */
export async function storedIn(page) {
  const kept = await page.evaluate(
    (key) => ({
      session: globalThis.sessionStorage.getItem(key),
      local: globalThis.localStorage.length,
      cookie: globalThis.document.cookie,
    }),
    STORAGE_KEY,
  );
  const cookies = await page.context().cookies();
  if (kept.local !== 0) throw new Error(`the page wrote ${kept.local} item(s) to localStorage`);
  if (kept.cookie !== '' || cookies.length > 0) throw new Error('the page has cookies');
  return kept.session === null ? null : JSON.parse(kept.session);
}

/** Sets the expiry of the portal session the tab keeps (ms from now). */
export async function expireStoredIn(page, fromNowMs) {
  await page.evaluate(
    ([key, ms]) => {
      const stored = JSON.parse(globalThis.sessionStorage.getItem(key));
      stored.expiresAt = Date.now() + ms;
      globalThis.sessionStorage.setItem(key, JSON.stringify(stored));
    },
    [STORAGE_KEY, fromNowMs],
  );
}

export const receiver = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    received.push({
      url: request.url,
      headers: request.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    });
    response.writeHead(receiverState.failing ? 503 : 200, { 'content-type': 'application/json' });
    response.end(receiverState.failing ? receiverState.failingBody : '{"ok":true}');
  });
});
