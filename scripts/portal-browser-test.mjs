// The webhook portal in a real browser (docs/api.md#webhook-portal): Debian's Chromium driven by
// playwright-core against the compiled API and worker (`npm run build` first) on a throw-away database, with
// a local receiver that can be told to fail. Screenshots go to portal-screenshots/ (git-ignored); with
// --update-docs the delivery-log one is copied to docs/portal-delivery-log.png.
import { spawn, execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';

const { fetch } = globalThis;

const root = resolve(import.meta.dirname, '..');
const API_PORT = Number(process.env.PORTAL_TEST_PORT ?? 3600);
const RECEIVER_PORT = API_PORT + 1;
const base = `http://127.0.0.1:${API_PORT}`;
const shots = join(root, 'portal-screenshots');
const database = `cp_portal_browser_${process.pid}`;
const admin = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const databaseUrl = admin.replace(/\/[^/]*$/, `/${database}`);
const stateDir = mkdtempSync(join(tmpdir(), 'portal-browser-'));
const children = [];
let failing = false;
const received = [];

function sql(statement) {
  execFileSync('psql', [admin, '-qc', statement], { stdio: 'inherit' });
}

const env = {
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
  DEMO_STATE_FILE: join(stateDir, 'demo.json'),
  // short-lived access tokens: the portal must renew them with its refresh token during the run
  JWT_EXPIRES_IN: '8s',
  LOG_LEVEL: 'warn',
};

function start(script) {
  const child = spawn(process.execPath, [join(root, 'dist', script)], {
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  children.push(child);
  return child;
}

async function waitFor(check, what, timeoutMs = 30_000) {
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

async function apiCall(method, path, token, body, apiKey) {
  const res = await fetch(`${base}/api${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(apiKey ? { 'x-api-key': apiKey } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()).data;
}

/** The status of a call made with a token captured from the page (the page's own calls aside). */
async function statusWith(method, path, token, body) {
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
function watchSession(page) {
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
async function signOutOf(page) {
  const loggedOut = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/auth/logout');
  await page.getByRole('button', { name: 'Sign out' }).click();
  const status = (await loggedOut).status();
  if (status !== 200) throw new Error(`Sign out: POST /api/auth/logout answered ${status}`);
  await page.getByText('You are signed out.').waitFor();
  await page.getByLabel('E-mail').waitFor();
}

/** The custom headers' values the run creates; the page must only ever show them masked. */
const TENANT_TOKEN = 'tenant-token-secret-1234';

/** The card lists exactly these headers with these masked values, and never a value in clear. */
async function expectHeadersOnCard(card, masked) {
  await card.getByRole('list', { name: 'Custom headers:' }).waitFor();
  await waitFor(
    async () => {
      const shown = await card
        .getByRole('list', { name: 'Custom headers:' })
        .getByRole('listitem')
        .allTextContents();
      return JSON.stringify(shown) === JSON.stringify(Object.entries(masked).map(([n, v]) => `${n}: ${v}`));
    },
    `the card to list ${JSON.stringify(masked)}`,
  );
  const html = await card.page().content();
  for (const value of [TENANT_TOKEN, 'route-eu-west', 'route-us-east']) {
    if (html.includes(value)) throw new Error(`a header value is on the page in clear: ${value}`);
  }
}

/** Sends a test from the card and checks the custom headers the receiver got (undefined: not sent). */
async function sendTest(card, expected) {
  const before = received.length;
  await card.getByRole('button', { name: 'Send test' }).click();
  await waitFor(async () => received.length > before, 'the test delivery');
  await card.getByRole('status').getByText('SUCCESS').waitFor();
  const got = received.at(-1).headers;
  for (const [name, value] of Object.entries(expected)) {
    if (got[name] !== value) throw new Error(`the test delivery carried ${name}: ${got[name]}, not ${value}`);
  }
}

/** The page is no wider than its window (no sideways scrolling); a failure names what sticks out. */
async function expectNoSidewaysScroll(page, what) {
  // runs in the page, where document and window exist
  const { scroll, width, wide } = await page.evaluate(() => {
    const { document, innerWidth } = globalThis;
    const wide = [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > innerWidth)
      .slice(-3)
      .map((el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${el.className}`);
    return { scroll: document.documentElement.scrollWidth, width: innerWidth, wide };
  });
  if (scroll > width) {
    throw new Error(`${what} scrolls sideways: ${scroll} px wide in ${width} px (${wide.join(', ')})`);
  }
}

const receiver = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    received.push({
      url: request.url,
      headers: request.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    });
    response.writeHead(failing ? 503 : 200, { 'content-type': 'application/json' });
    response.end(failing ? '{"error":"receiver is down for the test"}' : '{"ok":true}');
  });
});

let browser;
try {
  rmSync(shots, { recursive: true, force: true });
  mkdirSync(shots, { recursive: true });
  await new Promise((r) => receiver.listen(RECEIVER_PORT, '127.0.0.1', r));
  sql(`CREATE DATABASE ${database}`);
  execFileSync('npx', ['prisma', 'migrate', 'deploy'], { cwd: root, env, stdio: 'ignore' });
  execFileSync(process.execPath, [join(root, 'dist', 'cli', 'seed.js')], { cwd: root, env, stdio: 'ignore' });
  const demo = JSON.parse(readFileSync(env.DEMO_STATE_FILE, 'utf8'));
  const owner = demo.logins.find((l) => l.role === 'OWNER').email;
  const pro = demo.communities.find((c) => c.slug === 'demo-pro');
  start('main.js');
  start('worker.js');
  await waitFor(async () => (await fetch(`${base}/api/health`)).ok, 'the API');

  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  // the page's icon: asked for by the browser on every load, it must not be refused (a console error each time)
  const iconRefusals = [];
  page.on('response', (response) => {
    if (/\/favicon\.(ico|svg)$/.test(new URL(response.url()).pathname) && response.status() >= 400)
      iconRefusals.push(`${response.url()} ${response.status()}`);
  });
  const signedIn = watchSession(page);
  const expectText = (text) => page.getByText(text).first().waitFor({ timeout: 15_000 });

  // --- password sign-in, then the community picker
  await page.goto(`${base}/portal`);
  await page.getByLabel('E-mail').fill(owner);
  await page.getByLabel('Password').fill('wrong password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').waitFor();
  await page.screenshot({ path: join(shots, '01-sign-in-error.png'), fullPage: true });
  await page.getByLabel('Password').fill(demo.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: /demo-pro/ }).click();
  await expectText('Endpoints');
  await page.screenshot({ path: join(shots, '02-endpoints.png'), fullPage: true });

  // --- create an endpoint; the secret is shown once
  const hook = `http://127.0.0.1:${RECEIVER_PORT}/portal-hook`;
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  await page.getByLabel('URL').fill(hook);
  await page.getByLabel('Description').fill('Browser test endpoint');
  await page.getByRole('checkbox', { name: /tweet\.created/ }).check();
  // two custom headers: the card shows them masked, and one is later edited while the other stays masked
  await page.getByRole('button', { name: 'Add header' }).click();
  await page.getByLabel('Name of header 1').fill('X-Tenant-Token');
  await page.getByLabel('Value of X-Tenant-Token').fill(TENANT_TOKEN);
  await page.getByRole('button', { name: 'Add header' }).click();
  await page.getByLabel('Name of header 2').fill('X-Route');
  await page.getByLabel('Value of X-Route').fill('route-eu-west');
  // a rate limit: shown on the card, kept by the API, removed below by emptying the box
  await page.getByLabel(/^Rate limit/).fill('20');
  // FIFO ordering: shown on the card, kept by the API, switched back to unordered below with the rate limit
  await page
    .getByLabel('Ordering', { exact: true })
    .selectOption({ label: 'FIFO (one at a time, in order)' });
  await page.getByRole('button', { name: 'Create endpoint' }).click();
  const secret = await page.getByTestId('secret').textContent();
  if (!secret?.startsWith('whsec_')) throw new Error(`no secret shown: ${secret}`);
  await page.screenshot({ path: join(shots, '03-secret-once.png'), fullPage: true });
  await page.getByRole('button', { name: 'I have saved it' }).click();
  if ((await page.content()).includes(secret)) throw new Error('the secret is still on the page');
  const card = page.locator(`li[data-endpoint="${hook}"]`);
  await expectHeadersOnCard(card, { 'X-Tenant-Token': '…1234', 'X-Route': '…west' });
  await card.getByText('Rate limit: 20 per second').waitFor();
  await card.getByText('Ordering: FIFO').waitFor();
  const listed = await apiCall('GET', `/communities/${pro.id}/webhooks`, signedIn.token);
  const created = listed.items.find((w) => w.url === hook);
  if (created.rateLimit !== 20) throw new Error(`the API keeps a rate limit of ${created.rateLimit}, not 20`);
  if (created.ordering !== 'fifo')
    throw new Error(`the API keeps the ordering as ${created.ordering}, not fifo`);

  // --- send a test and see the attempt; it carries the custom headers in clear
  await sendTest(card, { 'x-tenant-token': TENANT_TOKEN, 'x-route': 'route-eu-west' });
  await page.screenshot({ path: join(shots, '04-test-sent.png'), fullPage: true });

  // --- edit one header: the other comes back masked and keeps its stored value
  await card.getByRole('button', { name: 'Edit' }).click();
  const tenantValue = await page.getByLabel('Value of X-Tenant-Token').inputValue();
  if (tenantValue !== '…1234') throw new Error(`the form shows X-Tenant-Token as ${tenantValue}`);
  // what only the page can see, refused before any PATCH: a masked value moved to another name (the API
  // would store the mask itself) and one name on two rows (one would silently win)
  let patches = 0;
  const countPatch = (request) => request.method() === 'PATCH' && patches++;
  page.on('request', countPatch);
  await page.getByLabel('Name of header 1').fill('X-Tenant');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.locator('#headers-error', { hasText: 'Type the value of X-Tenant again' }).waitFor();
  await page.getByLabel('Name of header 1').fill('X-Tenant-Token');
  await page.getByRole('button', { name: 'Add header' }).click();
  await page.getByLabel('Name of header 3').fill('X-Route');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.locator('#headers-error', { hasText: 'X-Route is listed twice' }).waitFor();
  await page.getByRole('button', { name: 'Remove X-Route' }).last().click();
  page.off('request', countPatch);
  if (patches !== 0) throw new Error(`the page sent ${patches} PATCH for headers it should have refused`);
  await page.getByLabel('Value of X-Route').fill('route-us-east');
  // a name the platform sets itself: the API's 400 names it beside the headers
  await page.getByRole('button', { name: 'Add header' }).click();
  await page.getByLabel('Name of header 3').fill('Webhook-Signature');
  await page.getByLabel('Value of Webhook-Signature').fill('v1,forged');
  await page.getByRole('button', { name: 'Save' }).click();
  const refused = 'headers may not set Webhook-Signature';
  await page.locator('#headers-error', { hasText: refused }).waitFor();
  await page.getByRole('alert').filter({ hasText: 'Not saved' }).waitFor();
  const describedBy = await page.getByLabel('Name of header 3').getAttribute('aria-describedby');
  if (describedBy !== 'headers-error') throw new Error('the header inputs are not described by its message');
  await page.screenshot({ path: join(shots, '04a-headers-refused.png'), fullPage: true });
  // the form with its error at phone width: nothing wider than the screen
  await page.setViewportSize({ width: 375, height: 1000 });
  await page.screenshot({ path: join(shots, '04b-headers-refused-375px.png'), fullPage: true });
  await expectNoSidewaysScroll(page, 'the endpoint form with a refused header at 375 px');
  await page.setViewportSize({ width: 1440, height: 1000 });
  await page.getByRole('button', { name: 'Remove Webhook-Signature' }).click();
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('heading', { name: 'Edit endpoint' }).waitFor({ state: 'detached' });
  await expectHeadersOnCard(card, { 'X-Tenant-Token': '…1234', 'X-Route': '…east' });
  await sendTest(card, { 'x-tenant-token': TENANT_TOKEN, 'x-route': 'route-us-east' });
  await page.setViewportSize({ width: 375, height: 1000 });
  await page.screenshot({ path: join(shots, '04c-headers-375px.png'), fullPage: true });
  await expectNoSidewaysScroll(page, 'the endpoint card with its headers at 375 px');
  await page.setViewportSize({ width: 1440, height: 1000 });

  // --- remove a header: it is no longer sent, and the other still is, unchanged
  await card.getByRole('button', { name: 'Edit' }).click();
  await page.getByRole('button', { name: 'Remove X-Route' }).click();
  const limitShown = await page.getByLabel(/^Rate limit/).inputValue();
  if (limitShown !== '20') throw new Error(`the form shows the rate limit as ${limitShown}`);
  await page.getByLabel(/^Rate limit/).fill('');
  const orderingShown = await page.getByLabel('Ordering', { exact: true }).inputValue();
  if (orderingShown !== 'fifo') throw new Error(`the form shows the ordering as ${orderingShown}`);
  // back to unordered: the failing delivery below must not hold back the resend queued behind it
  await page.getByLabel('Ordering', { exact: true }).selectOption({ label: 'Unordered (parallel)' });
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('heading', { name: 'Edit endpoint' }).waitFor({ state: 'detached' });
  await expectHeadersOnCard(card, { 'X-Tenant-Token': '…1234' });
  await card.getByText('Rate limit: none').waitFor();
  await card.getByText('Ordering: unordered').waitFor();
  const edited = await apiCall('GET', `/communities/${pro.id}/webhooks`, signedIn.token);
  const orderingStored = edited.items.find((w) => w.url === hook).ordering;
  if (orderingStored !== 'unordered')
    throw new Error(`the API keeps the ordering as ${orderingStored}, not unordered`);
  await sendTest(card, { 'x-tenant-token': TENANT_TOKEN, 'x-route': undefined });

  // --- the receiver fails: the failure shows in the log; after recovery a resend succeeds
  failing = true;
  await apiCall('POST', '/sdk/tweets', undefined, { content: 'Hello from the portal test' }, demo.apiKey.key);
  await card.getByRole('button', { name: 'Delivery log' }).click();
  await waitFor(async () => {
    await card.getByRole('button', { name: 'Refresh' }).click();
    return (await card.locator('tr[data-status="FAILED"]').count()) >= 1;
  }, 'the failed delivery in the log');
  await card.locator('tr[data-status="FAILED"]').first().waitFor();
  failing = false;
  await card.locator('tr[data-status="FAILED"]').first().getByRole('button', { name: 'Resend' }).click();
  await waitFor(async () => {
    await card.getByRole('button', { name: 'Refresh' }).click();
    return (await card.locator('tr[data-status="SUCCESS"]').count()) >= 2;
  }, 'the resent delivery to succeed');
  await card.locator('tr[data-status="FAILED"]').first().getByRole('button', { name: 'Details' }).click();
  await page.screenshot({ path: join(shots, '05-delivery-log.png'), fullPage: true });

  // --- pause, miss two events, resume, and recover what was missed from the log's recover form
  const tenMinutesAgo = new Date(Date.now() - 10 * 60_000);
  const pad = (n) => String(n).padStart(2, '0');
  const localSince =
    `${tenMinutesAgo.getFullYear()}-${pad(tenMinutesAgo.getMonth() + 1)}-${pad(tenMinutesAgo.getDate())}` +
    `T${pad(tenMinutesAgo.getHours())}:${pad(tenMinutesAgo.getMinutes())}`;
  await card.getByRole('button', { name: 'Pause' }).click();
  await card.getByText('paused').waitFor();
  for (const content of ['Missed while paused 1', 'Missed while paused 2'])
    await apiCall('POST', '/sdk/tweets', undefined, { content }, demo.apiKey.key);
  await card.getByRole('button', { name: 'Resume' }).click();
  await card.getByText('active', { exact: true }).waitFor();
  const beforeRecover = received.length;
  if (!(await card.getByLabel('Recover failed since').isVisible()))
    await card.getByRole('button', { name: 'Delivery log' }).click();
  await card.getByLabel('Recover failed since').fill(localSince);
  await card.getByLabel('and events missed while paused or disabled').check();
  await card.getByRole('button', { name: 'Recover' }).click();
  await card.getByRole('status').filter({ hasText: '2 event(s) queued again.' }).waitFor();
  const missedSent = () =>
    received
      .slice(beforeRecover)
      .filter((r) => r.body.includes('Missed while paused'))
      .map((r) => r.body);
  await waitFor(async () => missedSent().length >= 2, 'the two missed events');
  for (const n of [1, 2])
    if (missedSent().filter((body) => body.includes(`Missed while paused ${n}`)).length !== 1)
      throw new Error(`missed event ${n} was not sent exactly once: ${missedSent().length} sent`);
  await page.screenshot({ path: join(shots, '05a-recovered-missed.png'), fullPage: true });
  await page.getByRole('button', { name: 'Event catalog' }).click();
  await page.screenshot({ path: join(shots, '06-catalog.png'), fullPage: true });
  await page.getByRole('button', { name: 'Verify signatures' }).click();
  await expectText('from community_platform import verify_webhook');
  await page.screenshot({ path: join(shots, '07-verify.png'), fullPage: true });
  await page.getByRole('button', { name: 'Endpoints' }).click();

  // --- delete, confirmed
  page.once('dialog', (dialog) => dialog.accept());
  await page.locator(`li[data-endpoint="${hook}"]`).getByRole('button', { name: 'Delete' }).click();
  await page.locator(`li[data-endpoint="${hook}"]`).waitFor({ state: 'detached' });

  // --- the first access token expires (JWT_EXPIRES_IN); the portal renews it with its refresh token
  await waitFor(
    async () => (await statusWith('GET', '/admin/sdk/me', signedIn.first)) === 401,
    'the first access token to expire',
  );
  await page.getByRole('button', { name: 'Event catalog' }).click();
  await page.getByRole('button', { name: 'Endpoints' }).click();
  await page.locator('li[data-endpoint]').first().waitFor();
  if (signedIn.renewals < 1) throw new Error('the portal did not renew its access token');

  // --- Sign out ends the session on the server: the tokens captured from the page are refused
  const live = signedIn.token;
  if ((await statusWith('GET', '/admin/sdk/me', live)) !== 200) throw new Error('the live token is refused');
  await signOutOf(page);
  await page.screenshot({ path: join(shots, '08-signed-out.png'), fullPage: true });
  for (const token of new Set([live, signedIn.token])) {
    const status = await statusWith('GET', '/admin/sdk/me', token);
    if (status !== 401) throw new Error(`an access token from the page answers ${status} after Sign out`);
  }
  const refreshed = await statusWith('POST', '/auth/refresh-token', undefined, {
    refreshToken: signedIn.refreshToken,
  });
  if (refreshed !== 401) throw new Error(`the page's refresh token answers ${refreshed} after Sign out`);

  // --- portal link sign-in, at phone width; a used link shows a clear page
  const login = await apiCall('POST', '/auth/login', undefined, {
    email: owner,
    password: demo.password,
    communityId: pro.id,
  });
  const link = await apiCall('POST', `/communities/${pro.id}/webhooks/portal-links`, login.accessToken, {});
  const phone = await browser.newPage({ viewport: { width: 375, height: 800 } });
  const linked = watchSession(phone);
  await phone.goto(link.url);
  await phone
    .getByRole('heading', { name: 'Webhooks · Demo Pro' /* the seed's name of demo-pro */ })
    .waitFor();
  if (phone.url().includes('token=')) throw new Error('the token stayed in the address bar');
  await phone.screenshot({ path: join(shots, '09-link-sign-in-375px.png'), fullPage: true });

  // --- Sign out ends the portal-link session too
  const hooksOfPro = `/communities/${pro.id}/webhooks`;
  await waitFor(async () => linked.token !== null, 'the portal session to call the API');
  const portalToken = linked.token;
  if ((await statusWith('GET', hooksOfPro, portalToken)) !== 200) throw new Error('portal session refused');
  await signOutOf(phone);
  const afterSignOut = await statusWith('GET', hooksOfPro, portalToken);
  if (afterSignOut !== 401) throw new Error(`the portal session answers ${afterSignOut} after Sign out`);
  await phone.goto('about:blank');
  await phone.goto(link.url);
  await phone.getByText('This portal link cannot be used').waitFor();
  await phone.screenshot({ path: join(shots, '10-used-link.png'), fullPage: true });

  if (iconRefusals.length > 0) throw new Error(`the icon was refused: ${iconRefusals.join(', ')}`);

  if (process.argv.includes('--update-docs')) {
    copyFileSync(join(shots, '05-delivery-log.png'), join(root, 'docs', 'portal-delivery-log.png'));
  }
  console.log(`portal browser test passed; screenshots in ${shots}`);
} finally {
  await browser?.close();
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r() : c.on('exit', r)))));
  receiver.close();
  try {
    sql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  } catch {
    // reported above
  }
  rmSync(stateDir, { recursive: true, force: true });
}
