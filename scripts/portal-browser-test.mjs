// The webhook portal in a real browser (docs/api.md#webhook-portal): Debian's Chromium driven by
// playwright-core against the compiled API and worker (`npm run build` first) on a throw-away database, with
// a local receiver that can be told to fail. Screenshots go to portal-screenshots/ (git-ignored); with
// --update-docs the ones the README and docs/api.md show are copied to docs/portal-*.png.
import { spawn, execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { deleteRunKeys } from './redis-run-keys.js';

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
/** what the receiver answers while failing; a test below makes it long, to see only its beginning shown */
let failingBody = '{"error":"receiver is down for the test"}';
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
  const reply = await res.json();
  // every call here expects success: a refusal stops the run with its status and code, not a later undefined
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status} ${reply?.code ?? ''}`);
  return reply.data;
}

/**
 * The test's own Bearer token for its calls to the API, from a login of its own, renewed before the run's
 * short-lived access tokens (JWT_EXPIRES_IN) run out: a step may take longer than they live on a slow machine.
 */
function ownLogin(credentials) {
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

/**
 * Sends the catalog's example of `eventType` from the card's test: the receiver gets an event of that type,
 * signed like any other, and the card shows the attempt; then the card's choice goes back to webhook.test.
 */
async function sendExample(card, eventType) {
  const before = received.length;
  const choice = card.getByRole('combobox', { name: 'Event the test sends' });
  await choice.selectOption(eventType);
  await card.getByRole('button', { name: 'Send test' }).click();
  await waitFor(async () => received.length > before, `the ${eventType} example`);
  const sent = JSON.parse(received.at(-1).body);
  if (sent.type !== eventType) throw new Error(`the example sent was a ${sent.type}, not a ${eventType}`);
  if (!received.at(-1).headers['webhook-signature']) throw new Error('the example was not signed');
  await card.getByTestId('test-result').getByText(eventType).first().waitFor();
  await choice.selectOption('webhook.test');
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

/** A time as the page shows it (the portal's localTime): formatted by the browser, in its time zone. */
function localTimeIn(page, iso) {
  return page.evaluate(
    (value) => new Date(value).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' }),
    iso,
  );
}

/** A card's 24 h figure as the portal words it, from the list route's counts. */
function rateText({ attempts24h: attempts, succeeded24h: succeeded }) {
  if (attempts === 0) return 'no attempts in 24 h';
  return `${Math.round((succeeded / attempts) * 100)} % of ${attempts} in 24 h`;
}

/**
 * Waits until the card's 24 h figure is what the API counts now, and returns it: the page must have read
 * the list again after the attempts it caused (no reload of the page in between).
 */
/** As expectRateShown, and the figure must differ from `before`: the attempts `after` names were counted. */
async function expectRateChanged(card, list, url, before, after) {
  const shown = await expectRateShown(card, list, url, `the 24 h figure to count ${after}`);
  if (shown === before) throw new Error(`the 24 h figure stayed ${before} after ${after}`);
  return shown;
}

async function expectRateShown(card, list, url, what) {
  let expected = null;
  let shown = null;
  try {
    await waitFor(
      async () => {
        const endpoint = (await list()).items.find((w) => w.url === url);
        expected = rateText(endpoint);
        shown = await card.getByTestId('success-rate').textContent();
        return shown === expected;
      },
      what,
      20_000,
    );
  } catch (err) {
    throw new Error(`${err.message}: the card shows "${shown}", the API counts "${expected}"`);
  }
  return expected;
}

/** Clicks the log's Refresh and returns the page of messages the API answered it. */
async function refreshLog(card) {
  const answer = card
    .page()
    .waitForResponse((r) => r.request().method() === 'GET' && /\/messages\?/.test(r.url()));
  await card.getByRole('button', { name: 'Refresh' }).click();
  return (await (await answer).json()).data;
}

/**
 * At phone width nothing reaches past the window's right edge but what a scroll container of its own
 * (the delivery log's table) holds, and every event name's chip is one line tall: names wrap between
 * chips, never inside one. `what` names the page in a failure.
 */
async function expectPhoneLayout(page, what) {
  // runs in the page, where document and window exist
  const { outside, chips } = await page.evaluate(() => {
    const { document, innerWidth, getComputedStyle } = globalThis;
    const name = (el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${el.className}`;
    const scrolls = (el) =>
      ['auto', 'scroll'].includes(getComputedStyle(el).overflowX) &&
      el.getBoundingClientRect().right <= innerWidth + 0.5;
    const outside = [];
    for (const el of document.querySelectorAll('body *')) {
      const box = el.getBoundingClientRect();
      if ((box.width === 0 && box.height === 0) || box.right <= innerWidth + 0.5) continue;
      let held = false;
      for (let up = el.parentElement; up && !held; up = up.parentElement) held = scrolls(up);
      if (!held) outside.push(`${name(el)} (right edge at ${Math.round(box.right)} px)`);
    }
    const chips = [...document.querySelectorAll('.chip')].map((el) => {
      const style = getComputedStyle(el);
      const lineHeight = parseFloat(style.lineHeight);
      const height = el.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
      const range = document.createRange();
      range.selectNodeContents(el);
      const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
      return { text: el.textContent, lines, height, lineHeight };
    });
    return { outside: outside.slice(0, 5), chips };
  });
  if (outside.length > 0) throw new Error(`${what}: past the right edge: ${outside.join(', ')}`);
  if (chips.length === 0) throw new Error(`${what}: no event name is shown as a chip`);
  const broken = chips.filter((c) => c.lines !== 1 || Math.abs(c.height - c.lineHeight) > 1);
  if (broken.length > 0) {
    const said = broken.map((c) => `${c.text} (${c.lines} lines, ${c.height} px for ${c.lineHeight} px)`);
    throw new Error(`${what}: event names broken over lines: ${said.join(', ')}`);
  }
}

/**
 * The endpoint's figures page: opened from its card, its totals are the card's 24 h counts (one source),
 * its three charts are drawn on canvases with data, under the page's CSP; then 7 d, phone width, and back.
 */
async function checkEndpointFigures(page, card, list, url) {
  const refused = [];
  const onConsole = (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
  };
  page.on('console', onConsole);
  await card.getByRole('button', { name: 'Figures' }).click();
  const figures = page.locator('section.figures');
  await figures.getByRole('heading', { name: /^Figures of/ }).waitFor();
  const totalCell = (column) => figures.locator(`[data-testid="figures-totals"] dd[data-column="${column}"]`);
  await totalCell('attempts').waitFor();
  const endpoint = (await list()).items.find((w) => w.url === url);
  const shown = [
    Number(await totalCell('attempts').textContent()),
    Number(await totalCell('succeeded').textContent()),
  ];
  if (!(shown[0] > 0)) throw new Error(`the figures page shows ${shown[0]} attempts`);
  if (shown[0] !== endpoint.attempts24h || shown[1] !== endpoint.succeeded24h)
    throw new Error(
      `the figures page shows ${shown}, the card counts ${[endpoint.attempts24h, endpoint.succeeded24h]}`,
    );
  if (!/ms$/.test(await totalCell('p50').textContent()))
    throw new Error('the figures page shows no p50 latency');
  // three charts, each a canvas with something drawn on it, labelled for a screen reader with the totals
  const drawn = async () =>
    figures.locator('.chart canvas').evaluateAll((canvases) =>
      canvases.map((canvas) => {
        const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        let painted = 0;
        for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) painted++;
        return { width: canvas.getBoundingClientRect().width, painted };
      }),
    );
  await waitFor(async () => (await drawn()).filter((c) => c.painted > 0).length === 3, 'three charts drawn');
  const label = await figures.locator('.chart-box').first().getAttribute('aria-label');
  if (!label.includes(`${shown[0]} in all`)) throw new Error(`the attempts chart is labelled "${label}"`);
  await page.screenshot({ path: join(shots, '30-endpoint-figures.png'), fullPage: true });

  await figures.getByRole('button', { name: '7 d' }).click();
  await figures.getByRole('heading', { name: 'Totals for the last 7 days' }).waitFor();
  if (Number(await totalCell('attempts').textContent()) < shown[0])
    throw new Error('the week counts fewer attempts than the day');
  await waitFor(
    async () => (await drawn()).filter((c) => c.painted > 0).length === 3,
    'the week charts drawn',
  );

  await page.setViewportSize({ width: 375, height: 1000 });
  await waitFor(async () => (await drawn()).every((c) => c.width <= 375), 'the charts at phone width');
  await expectNoSidewaysScroll(page, 'the figures page at 375 px');
  await page.screenshot({ path: join(shots, '31-endpoint-figures-375px.png'), fullPage: true });
  await page.setViewportSize({ width: 1440, height: 1000 });

  await figures.getByRole('button', { name: 'Back to endpoints' }).click();
  await card.getByRole('button', { name: 'Figures' }).waitFor();
  page.off('console', onConsole);
  if (refused.length > 0) throw new Error(`the figures page was refused by the CSP: ${refused.join('; ')}`);
}

/**
 * The delivery log by message and its search (docs/api.md#webhook-portal): a message opened on its
 * attempts, each with when it was sent and when the next is due; the state and event type filters; a
 * message found by its id, and one that is not there; the API's refusal of a window that ends before it
 * starts; the same at phone width, where no column is off the screen; Load more past a page of
 * messages (`apiKey` raises them). `messageId` is a message with an attempt sent and its retry waiting.
 */
async function searchTheLog(page, card, messageId, apiKey) {
  const rows = card.locator('table.messages > tbody > tr[data-message]');
  /** Does `action`, and returns the messages route's answer to the read it caused. */
  const answerTo = async (action) => {
    // a 401 is not the answer: the page's token ran out (JWT_EXPIRES_IN is short here), and the page
    // renews it and asks again; the answer is that second one, or a later reading takes it for its own
    const answer = page.waitForResponse(
      (r) => r.request().method() === 'GET' && /\/messages\?/.test(r.url()) && r.status() !== 401,
    );
    await action();
    const response = await answer;
    return {
      status: response.status(),
      body: await response.json(),
      query: new URL(response.url()).searchParams,
    };
  };
  /** The message rows shown are those of the answer, in its order. */
  const expectShown = async (answer, what) => {
    const ids = answer.body.data.items.map((m) => m.messageId);
    let shown = [];
    try {
      await waitFor(
        async () => {
          shown = await rows.evaluateAll((els) => els.map((el) => el.dataset.message));
          return JSON.stringify(shown) === JSON.stringify(ids);
        },
        what,
        10_000,
      );
    } catch (err) {
      throw new Error(`${err.message}: shown ${shown.join(', ')}; the API answered ${ids.join(', ')}`);
    }
    return answer.body.data.items;
  };

  // one message opened: every attempt, newest first, its Sent and its Next attempt apart
  const message = (await refreshLog(card)).items.find((m) => m.messageId === messageId);
  if (!message || message.attempts.length < 2)
    throw new Error(`the failed message has ${message?.attempts.length} attempt(s), not 2 or more`);
  const row = card.locator(`tr[data-message="${messageId}"]`);
  const opener = row.getByRole('button', { name: 'Attempts' });
  if ((await opener.getAttribute('aria-expanded')) !== 'true') await opener.click();
  const attemptRows = card.locator(`table[data-attempts-of="${messageId}"] > tbody > tr[data-delivery]`);
  await attemptRows.nth(message.attempts.length - 1).waitFor();
  const numbers = await attemptRows.locator('td[data-column="attempt"]').allTextContents();
  const expectedNumbers = message.attempts.map((d) => String(d.attempt));
  if (JSON.stringify(numbers) !== JSON.stringify(expectedNumbers))
    throw new Error(`the attempts shown are ${numbers.join(', ')}, not ${expectedNumbers.join(', ')}`);
  const waiting = message.attempts.find((d) => d.status === 'PENDING' && d.sentAt === null);
  const sent = message.attempts.find((d) => d.sentAt !== null);
  if (!waiting || !sent) throw new Error('the failed message has no waiting and no sent attempt');
  const attemptCell = (d, column) =>
    card.locator(`tr[data-delivery="${d.id}"] td[data-column="${column}"]`).textContent();
  const expectAttemptCell = async (d, column, text) => {
    const shown = await attemptCell(d, column);
    if (shown !== text) throw new Error(`attempt ${d.attempt}'s ${column} shows "${shown}", not "${text}"`);
  };
  await expectAttemptCell(waiting, 'sent', 'waiting');
  await expectAttemptCell(waiting, 'next-attempt', await localTimeIn(page, waiting.nextAttemptAt));
  await expectAttemptCell(sent, 'sent', await localTimeIn(page, sent.sentAt));
  await expectAttemptCell(sent, 'next-attempt', '—');
  const firstShown = await row.locator('td[data-column="first-attempt"]').textContent();
  if (firstShown !== (await localTimeIn(page, message.firstAttemptAt)))
    throw new Error(`the message's first attempt shows "${firstShown}"`);
  await page.screenshot({ path: join(shots, '40-messages.png'), fullPage: true });

  // by state: the API is asked for it, and every message shown is in it
  const failed = await answerTo(() => card.getByLabel('State').selectOption('FAILED'));
  if (failed.status !== 200 || failed.query.get('status') !== 'FAILED')
    throw new Error(`the state filter asked ${failed.query}: ${failed.status}`);
  const failedShown = await expectShown(failed, 'the failed messages');
  if (failedShown.length === 0 || failedShown.some((m) => m.status !== 'FAILED'))
    throw new Error(`the state filter shows ${failedShown.map((m) => m.status).join(', ')}`);
  if ((await rows.and(card.locator(':not([data-status="FAILED"])')).count()) !== 0)
    throw new Error('a message shown under Failed is in another state');
  await answerTo(() => card.getByLabel('State').selectOption(''));

  // by event type, from the endpoint's events (and the test route's)
  const options = await card.getByLabel('Event type').locator('option').allTextContents();
  for (const type of ['tweet.created', 'webhook.test'])
    if (!options.includes(type)) throw new Error(`the event type filter offers ${options.join(', ')}`);
  const tweets = await answerTo(() => card.getByLabel('Event type').selectOption('tweet.created'));
  if (tweets.query.get('eventType') !== 'tweet.created')
    throw new Error(`the type filter asked ${tweets.query}`);
  const tweetsShown = await expectShown(tweets, 'the tweet.created messages');
  if (tweetsShown.length === 0 || tweetsShown.some((m) => m.eventType !== 'tweet.created'))
    throw new Error(`the event type filter shows ${tweetsShown.map((m) => m.eventType).join(', ')}`);
  const chips = await rows.locator('code.event').allTextContents();
  if (chips.some((name) => name !== 'tweet.created')) throw new Error(`shown under tweet.created: ${chips}`);
  await answerTo(() => card.getByLabel('Event type').selectOption(''));

  // found by its id: that message alone, opened on its attempts
  await card.getByLabel('Message id').fill(messageId);
  const found = await answerTo(() => card.getByRole('button', { name: 'Search', exact: true }).click());
  if (found.query.get('messageId') !== messageId) throw new Error(`the search asked ${found.query}`);
  await expectShown(found, 'the message found by its id');
  await attemptRows.nth(message.attempts.length - 1).waitFor();
  await page.screenshot({ path: join(shots, '41-message-search.png'), fullPage: true });

  // the same at phone width: each message and attempt a block of labelled lines, nothing off the screen
  await page.setViewportSize({ width: 375, height: 1000 });
  await page.screenshot({ path: join(shots, '42-messages-375px.png'), fullPage: true });
  await expectNoSidewaysScroll(page, 'the message view at 375 px');
  await expectPhoneLayout(page, 'the message view at 375 px');
  const offScreen = await card
    .locator('table.messages td')
    .evaluateAll(
      (cells) => cells.filter((td) => td.getBoundingClientRect().right > globalThis.innerWidth + 0.5).length,
    );
  if (offScreen > 0) throw new Error(`${offScreen} cell(s) of the message view are off a 375 px screen`);
  await page.setViewportSize({ width: 1440, height: 1000 });

  // an id this endpoint has no message with
  await card.getByLabel('Message id').fill('msg_0000000000000000000000NONE');
  await answerTo(() => card.getByRole('button', { name: 'Search', exact: true }).click());
  await card.getByText('No message with this id for this endpoint.').waitFor();
  if ((await rows.count()) !== 0) throw new Error('a message is shown for an id the endpoint has none with');

  // a window that ends before it starts: the API refuses it, and its words are shown
  await card.getByLabel('Message id').fill('');
  await card.getByLabel('Last attempt since').fill('2026-11-20T12:00');
  await card.getByLabel('Last attempt before').fill('2026-11-19T12:00');
  const refused = await answerTo(() => card.getByRole('button', { name: 'Search', exact: true }).click());
  if (refused.status !== 400) throw new Error(`a window ending before it starts answered ${refused.status}`);
  if (refused.query.get('since') !== new Date(2026, 10, 20, 12, 0).toISOString())
    throw new Error(`since was sent as ${refused.query.get('since')}, not as the local time's ISO instant`);
  await card.getByRole('alert').filter({ hasText: refused.body.error }).waitFor();

  const cleared = await answerTo(() => card.getByRole('button', { name: 'Clear' }).click());
  if ([...cleared.query.keys()].some((key) => !['limit', 'offset'].includes(key)))
    throw new Error(`Clear still asks ${cleared.query}`);
  await expectShown(cleared, 'the whole log again');

  // more messages than a page: Load more asks for the next one and adds it, each message once
  for (let n = 1; n <= 20; n++)
    await apiCall('POST', '/sdk/tweets', undefined, { content: `Another page of the log ${n}` }, apiKey);
  let first = null;
  // every one of them delivered, so that the card's 24 h figures, read again after this load, count them
  await waitFor(async () => {
    first = await refreshLog(card);
    return first.hasMore && first.items.every((m) => m.status !== 'PENDING' || m.messageId === messageId);
  }, 'a second page of messages, the first one delivered');
  await expectShown({ body: { data: first } }, 'the first page');
  const more = await answerTo(() => card.getByRole('button', { name: 'Load more' }).click());
  if (more.query.get('offset') !== String(first.items.length))
    throw new Error(`Load more asked ${more.query} after ${first.items.length} messages`);
  const expected = [...new Set([...first.items, ...more.body.data.items].map((m) => m.messageId))];
  let shown = [];
  await waitFor(async () => {
    shown = await rows.evaluateAll((els) => els.map((el) => el.dataset.message));
    return shown.length === expected.length;
  }, `${expected.length} messages after Load more`);
  if (new Set(shown).size !== shown.length) throw new Error('Load more shows a message twice');
  if (!shown.includes(messageId)) throw new Error('the failed message is not among those shown');
  const loadMore = card.getByRole('button', { name: 'Load more' });
  if (!more.body.data.hasMore && (await loadMore.count()) !== 0)
    throw new Error('Load more is offered with nothing more to load');
}

const STORAGE_KEY = 'webhook-portal-session';

/** What the page keeps in the browser: the portal session in sessionStorage, nothing else anywhere. */
async function storedIn(page) {
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
async function expireStoredIn(page, fromNowMs) {
  await page.evaluate(
    ([key, ms]) => {
      const stored = JSON.parse(globalThis.sessionStorage.getItem(key));
      stored.expiresAt = Date.now() + ms;
      globalThis.sessionStorage.setItem(key, JSON.stringify(stored));
    },
    [STORAGE_KEY, fromNowMs],
  );
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
    response.end(failing ? failingBody : '{"ok":true}');
  });
});

/**
 * The portal embedded in another site's page (docs/api.md#embedding-the-portal). The site is node's https
 * server on API_PORT + 2 with a certificate `openssl` makes for the run (the API takes only https origins;
 * the browser contexts accept the certificate), reached under two origins: https://localhost:<port>, which
 * demo-pro allows, and https://127.0.0.1:<port>, which it does not. Its page frames whatever link it is given.
 * The framed portal is a third party there: Chromium gives it sessionStorage only where third-party cookies are
 * allowed, as in a regular profile by default (a persistent context with that preference), and denies it in a
 * private window (the run's own contexts), where the portal still works but a reload asks for a new link.
 */
async function embeddedPortal({ browser, owner, password, pro, enterprise }) {
  const port = API_PORT + 2;
  const allowed = `https://localhost:${port}`;
  const other = `https://127.0.0.1:${port}`;
  const certDir = mkdtempSync(join(tmpdir(), 'portal-embed-'));
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost'],
      ...['-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'],
      ...['-keyout', join(certDir, 'key.pem'), '-out', join(certDir, 'cert.pem')],
    ],
    { stdio: 'ignore' },
  );
  // a square in the brand colour: the community's logo, served by the site itself (https, another origin)
  const logo =
    '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="#ffcc00"/></svg>';
  const site = createHttpsServer(
    { key: readFileSync(join(certDir, 'key.pem')), cert: readFileSync(join(certDir, 'cert.pem')) },
    (request, response) => {
      const url = new URL(request.url, allowed);
      if (url.pathname === '/logo.svg') {
        response.writeHead(200, { 'content-type': 'image/svg+xml' });
        return response.end(logo);
      }
      const src = url.searchParams.get('frame') ?? '';
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        '<!doctype html><title>Community app</title><h1>Our app</h1>' +
          `<iframe title="Webhooks" src="${src.replaceAll('&', '&amp;').replaceAll('"', '&quot;')}" ` +
          'width="1200" height="900"></iframe>',
      );
    },
  );
  await new Promise((r) => site.listen(port, '127.0.0.1', r));
  const viewport = { width: 1280, height: 1100 };
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport });
  const profile = join(certDir, 'profile');
  mkdirSync(join(profile, 'Default'), { recursive: true });
  // cookie_controls_mode 0: third-party cookies (and so a framed page's storage) allowed, a regular profile's default
  writeFileSync(
    join(profile, 'Default', 'Preferences'),
    JSON.stringify({ profile: { cookie_controls_mode: 0, block_third_party_cookies: false } }),
  );
  const regular = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    ignoreHTTPSErrors: true,
    viewport,
  });
  try {
    const ownerToken = ownLogin({ email: owner, password, communityId: pro.id });
    const settings = await apiCall('PATCH', '/sdk/community/settings', await ownerToken(), {
      communityId: pro.id,
      portalAllowedOrigins: [allowed],
    });
    if (JSON.stringify(settings?.portalAllowedOrigins) !== JSON.stringify([allowed]))
      throw new Error(`demo-pro's portalAllowedOrigins: ${JSON.stringify(settings)}`);
    // a light brand colour: the page must put black text on it and darken it where it is text on white
    await apiCall('PATCH', '/sdk/community/branding', await ownerToken(), {
      communityId: pro.id,
      primaryColor: '#FFCC00',
      logoUrl: `${allowed}/logo.svg`,
    });
    const newLink = async (community = pro) =>
      (await apiCall('POST', `/communities/${community.id}/webhooks/portal-links`, await ownerToken(), {}))
        .url;
    const frameOf = (page) => page.frameLocator('iframe');
    const heading = (page) => frameOf(page).getByRole('heading', { name: 'Webhooks · Demo Pro' });

    // --- framed by an allowed origin: the portal shows, in the community's colours, with its logo
    const link = await newLink();
    if (new URL(link).searchParams.get('community') !== pro.id)
      throw new Error(`the link names no community: ${link}`);
    const app = await regular.newPage();
    await app.goto(`${allowed}/?frame=${encodeURIComponent(link)}`);
    await heading(app).waitFor();
    await frameOf(app).locator('li[data-endpoint]').first().waitFor();
    await app.screenshot({ path: join(shots, '20-embedded.png'), fullPage: true });
    const portalFrame = app.frames().find((f) => f.url().startsWith(`${base}/portal/`));
    if (!portalFrame) throw new Error(`no portal frame: ${app.frames().map((f) => f.url())}`);
    if (portalFrame.url() !== `${base}/portal/?community=${pro.id}`)
      throw new Error(
        `the framed page's address is ${portalFrame.url()}: the token must go, the community stay`,
      );
    const looks = await portalFrame.evaluate(() => {
      const { document, getComputedStyle } = globalThis;
      const current = getComputedStyle(document.querySelector("button[aria-current='page']"));
      const plain = getComputedStyle(document.querySelector('button:not([aria-current])'));
      const logo = document.querySelector('img[data-testid="logo"]');
      return {
        fill: current.backgroundColor,
        onFill: current.color,
        ink: plain.color,
        logoWidth: logo?.naturalWidth ?? 0,
      };
    });
    if (looks.fill !== 'rgb(255, 204, 0)' || looks.onFill !== 'rgb(0, 0, 0)')
      throw new Error(
        `the current tab is ${looks.onFill} on ${looks.fill}, not black on the brand's #ffcc00`,
      );
    // #ffcc00 as text on white is 1.6:1: the page darkens it (keeping its hue) to at least 4.5:1
    const [r, g, b] = looks.ink.match(/\d+/g).map(Number);
    if (!(r < 255 && g < 204 && b === 0 && Math.abs(r / 255 - g / 204) < 0.02))
      throw new Error(`the buttons' text is ${looks.ink}, not the brand colour darkened`);
    if (looks.logoWidth === 0) throw new Error("the community's https logo did not load");
    await app.screenshot({ path: join(shots, '22-branded.png'), fullPage: true });

    // --- a reload of the frame keeps its session (sessionStorage of the frame, never a cookie)
    const kept = await portalFrame.evaluate((key) => globalThis.sessionStorage.getItem(key), STORAGE_KEY);
    if (!kept) throw new Error('the framed portal keeps no session');
    await portalFrame.evaluate(() => globalThis.location.reload());
    await heading(app).waitFor();
    await frameOf(app).locator('li[data-endpoint]').first().waitFor();
    if ((await frameOf(app).getByLabel('E-mail').count()) !== 0)
      throw new Error('the reload shows a sign-in form');
    const after = app.frames().find((f) => f.url().startsWith(`${base}/portal/`));
    if ((await after.evaluate((key) => globalThis.sessionStorage.getItem(key), STORAGE_KEY)) !== kept)
      throw new Error('the reload of the frame changed its session');
    if ((await regular.cookies()).length > 0) throw new Error('the framed portal set cookies');

    // --- where the browser denies a framed page its storage (a private window), the portal still opens, and a
    // reload of the frame asks for a new link from the app (never a password form inside the frame)
    const privateApp = await context.newPage();
    await privateApp.goto(`${allowed}/?frame=${encodeURIComponent(await newLink())}`);
    await heading(privateApp).waitFor();
    await frameOf(privateApp).locator('li[data-endpoint]').first().waitFor();
    const privateFrame = privateApp.frames().find((f) => f.url().startsWith(`${base}/portal/`));
    await privateFrame.evaluate(() => globalThis.location.reload());
    await frameOf(privateApp).getByText('Open the webhook portal again from your app').waitFor();
    if ((await frameOf(privateApp).getByLabel('Password').count()) !== 0)
      throw new Error('the framed page offers a password form');

    // --- framed by another origin: Chromium refuses the frame; nothing of the portal runs there
    const refusedLink = await newLink();
    const intruder = await context.newPage();
    const refusal = intruder.waitForEvent('console', (m) => /frame-ancestors/.test(m.text()));
    await intruder.goto(`${other}/?frame=${encodeURIComponent(refusedLink)}`);
    await refusal;
    const framed = intruder.frames().filter((f) => f !== intruder.mainFrame());
    for (const frame of framed) {
      if (frame.url().startsWith(`${base}/portal/`) && (await frame.locator('#app').count()) > 0)
        throw new Error('the portal page loaded inside a frame of a disallowed origin');
    }
    if ((await frameOf(intruder).getByRole('heading').count()) !== 0)
      throw new Error('the disallowed frame shows a heading');
    await intruder.screenshot({ path: join(shots, '21-embed-refused.png'), fullPage: true });
    // the portal never ran there: its link is still unused
    const exchanged = await fetch(`${base}/api/webhooks/portal-sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: new URL(refusedLink).hash.replace(/^#token=/, '') }),
    });
    if (exchanged.status !== 201) throw new Error(`the refused frame used its link (${exchanged.status})`);

    // --- the page shows only the community its URL names: a kept session of demo-pro under demo-enterprise's
    // address is not shown, and demo-enterprise's link opened under demo-pro's address is refused unspent
    const tab = await context.newPage();
    await tab.goto(await newLink());
    await tab.getByRole('heading', { name: 'Webhooks · Demo Pro' }).waitFor();
    await tab.goto(`${base}/portal/?community=${enterprise.id}`);
    await tab.getByTestId('refused').getByText('another community').waitFor();
    if ((await tab.locator('li[data-endpoint]').count()) !== 0)
      throw new Error("another community's data shows");
    const enterpriseLink = new URL(await newLink(enterprise));
    enterpriseLink.searchParams.set('community', pro.id);
    const exchange = tab.waitForResponse(
      (r) => new URL(r.url()).pathname === '/api/webhooks/portal-sessions',
    );
    await tab.goto('about:blank');
    await tab.goto(enterpriseLink.href);
    await tab.getByTestId('refused').getByText('another community').waitFor();
    const answer = await exchange;
    if (answer.request().postDataJSON().community !== pro.id)
      throw new Error(`the exchange did not name the page's community: ${answer.request().postData()}`);
    if (answer.status() !== 403)
      throw new Error(`the other community's link was exchanged (${answer.status()})`);
    if ((await tab.getByRole('heading', { name: /Webhooks · / }).count()) !== 0)
      throw new Error("the other community's portal shows");
    // left unused: the same link still opens its own community's page
    enterpriseLink.searchParams.set('community', enterprise.id);
    const own = await context.newPage();
    await own.goto(enterpriseLink.href);
    await own.getByRole('heading', { name: 'Webhooks · Demo Enterprise' }).waitFor();
    await own.close();
    // a password sign-in at an address naming a community (its slug here) offers only that community
    const direct = await context.newPage();
    await direct.goto(`${base}/portal/?community=${enterprise.slug}`);
    await direct.getByLabel('E-mail').fill(owner);
    await direct.getByLabel('Password').fill(password);
    await direct.getByRole('button', { name: 'Sign in' }).click();
    await direct.getByRole('button', { name: /demo-enterprise/ }).waitFor();
    const offered = await direct.locator('ul.plain button').allTextContents();
    if (offered.length !== 1)
      throw new Error(`the picker offers ${offered.join(', ')}, not demo-enterprise alone`);
  } finally {
    await regular.close();
    await context.close();
    site.close();
    rmSync(certDir, { recursive: true, force: true });
  }
}

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
  const ownerToken = ownLogin({ email: owner, password: demo.password });
  const listOfPro = async () => apiCall('GET', `/communities/${pro.id}/webhooks`, await ownerToken());

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
  // a password sign-in's tokens stay in memory: nothing in the browser's storage
  if ((await storedIn(page)) !== null) throw new Error('a password sign-in is kept in sessionStorage');

  // --- create an endpoint; the secret is shown once, inside the new endpoint's card, which takes the focus
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
  const card = page.locator(`li[data-endpoint="${hook}"]`);
  const secret = await card.getByTestId('secret').textContent();
  if (!secret?.startsWith('whsec_')) throw new Error(`no secret shown: ${secret}`);
  if ((await page.getByTestId('secret').count()) !== 1) throw new Error('the secret is shown more than once');
  const secretHasFocus = await card
    .getByRole('heading', { name: 'Signing secret' })
    .evaluate((el) => el === globalThis.document.activeElement);
  if (!secretHasFocus) throw new Error('the new secret did not take the focus');
  await card.getByRole('button', { name: 'Copy secret' }).waitFor();
  await card.getByText('Copy it now: it will not be shown again.').waitFor();
  await page.screenshot({ path: join(shots, '03-secret-once.png'), fullPage: true });
  await card.getByRole('button', { name: 'I have saved it' }).click();
  if ((await page.content()).includes(secret)) throw new Error('the secret is still on the page');

  // --- rotate: the new secret, once, in the card, saying until when the previous one keeps signing
  const rotation = page.waitForResponse((r) => r.url().endsWith('/rotate-secret'));
  await card.getByRole('button', { name: 'Rotate secret' }).click();
  const rotated = (await (await rotation).json()).data;
  await card.getByTestId('secret').filter({ hasText: rotated.secret }).waitFor();
  if (rotated.secret === secret) throw new Error('the rotation answered the old secret');
  if ((await page.getByTestId('secret').count()) !== 1) throw new Error('the rotated secret is shown twice');
  await card.getByRole('button', { name: 'Copy secret' }).waitFor();
  await card.getByText('Copy it now: it will not be shown again.').waitFor();
  const overlapUntil = await localTimeIn(page, rotated.previousSecretsExpireAt);
  const overlap = await card.getByTestId('secret-overlap').textContent();
  if (!overlap.includes(`The previous secret keeps signing until ${overlapUntil}`))
    throw new Error(`the card does not say until when the previous secret signs: ${overlap}`);
  if (!overlap.includes('your receiver must accept either'))
    throw new Error(`the card does not say that both secrets must be accepted: ${overlap}`);
  await page.screenshot({ path: join(shots, '03a-secret-rotated.png'), fullPage: true });
  await card.getByRole('button', { name: 'I have saved it' }).click();
  if ((await page.content()).includes(rotated.secret))
    throw new Error('the rotated secret is still on the page');
  if ((await page.getByTestId('secret-overlap').count()) !== 0) throw new Error('the overlap note stayed');
  await expectHeadersOnCard(card, { 'X-Tenant-Token': '…1234', 'X-Route': '…west' });
  await card.getByText('Rate limit: 20 per second').waitFor();
  await card.getByText('Ordering: FIFO').waitFor();
  const listed = await listOfPro();
  const created = listed.items.find((w) => w.url === hook);
  if (created.rateLimit !== 20) throw new Error(`the API keeps a rate limit of ${created.rateLimit}, not 20`);
  if (created.ordering !== 'fifo')
    throw new Error(`the API keeps the ordering as ${created.ordering}, not fifo`);

  // --- send a test and see the attempt; it carries the custom headers in clear
  await sendTest(card, { 'x-tenant-token': TENANT_TOKEN, 'x-route': 'route-eu-west' });
  await page.screenshot({ path: join(shots, '04-test-sent.png'), fullPage: true });
  await sendExample(card, 'tweet.created');

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
  const edited = await listOfPro();
  const orderingStored = edited.items.find((w) => w.url === hook).ordering;
  if (orderingStored !== 'unordered')
    throw new Error(`the API keeps the ordering as ${orderingStored}, not unordered`);
  await sendTest(card, { 'x-tenant-token': TENANT_TOKEN, 'x-route': undefined });

  // --- a failed test shows what the receiver answered (status, error, duration, the body's beginning),
  // and the card's 24 h figure counts it at once, without a reload
  const rateBeforeTest = await expectRateShown(card, listOfPro, hook, 'the 24 h figure after the tests');
  failing = true;
  failingBody = JSON.stringify({ error: 'receiver is down for the test', padding: 'z'.repeat(2000) });
  await card.getByRole('button', { name: 'Send test' }).click();
  const testResult = card.getByTestId('test-result');
  await testResult.getByRole('alert').filter({ hasText: 'Test delivery failed' }).waitFor();
  const failedTest = await testResult.textContent();
  for (const part of [
    'Response status503',
    'Errortarget answered HTTP 503',
    'Response body (beginning){"error":"receiver is down for the test"',
    `(${failingBody.length} characters in all)`,
  ]) {
    if (!failedTest.includes(part)) throw new Error(`the failed test does not show "${part}": ${failedTest}`);
  }
  if (!/Duration\d+ ms/.test(failedTest)) throw new Error(`the failed test shows no duration: ${failedTest}`);
  if (failedTest.includes('z'.repeat(1000))) throw new Error('the failed test shows the whole response body');
  await page.screenshot({ path: join(shots, '04d-test-failed.png'), fullPage: true });
  failing = false;
  await expectRateChanged(card, listOfPro, hook, rateBeforeTest, 'the failed test');

  // --- the receiver fails: the failure shows in the log, with when it was sent, and its retry waiting
  failing = true;
  failingBody = '{"error":"receiver is down for the test"}';
  await apiCall('POST', '/sdk/tweets', undefined, { content: 'Hello from the portal test' }, demo.apiKey.key);
  await card.getByRole('button', { name: 'Delivery log' }).click();
  // one row per message: the tweet's message, its first attempt FAILED and its retry waiting under it
  const retrying = (m) =>
    m.eventType === 'tweet.created' &&
    m.status === 'PENDING' &&
    m.attempts.some((d) => d.status === 'FAILED') &&
    m.attempts[0].sentAt === null;
  let log = null;
  await waitFor(async () => {
    log = await refreshLog(card);
    return log.items.some(retrying);
  }, 'the failed delivery and its waiting retry in the log');
  failing = false;
  const failedMessage = log.items.find(retrying);
  const failedItem = failedMessage.attempts.find((d) => d.status === 'FAILED');
  const waitingItem = failedMessage.attempts[0];
  const messageRow = card.locator(`tr[data-message="${failedMessage.messageId}"]`);
  await messageRow.getByRole('button', { name: 'Attempts' }).click();
  // the rows of that answer, rendered: the message, and its attempts under it once opened
  for (const item of [failedItem, waitingItem])
    await card.locator(`tr[data-delivery="${item.id}"]`).waitFor();
  const headings = await card.getByRole('columnheader').allTextContents();
  for (const column of [
    'Message',
    'First attempt',
    'Last attempt',
    'State',
    'Attempts',
    'Sent',
    'Next attempt',
  ])
    if (!headings.includes(column))
      throw new Error(`the log has no ${column} column: ${headings.join(', ')}`);
  if (headings.includes('Time')) throw new Error('the log still has a Time column');
  const cell = (item, column) => card.locator(`tr[data-delivery="${item.id}"] td[data-column="${column}"]`);
  const expectCell = async (item, column, text) => {
    await cell(item, column).filter({ hasText: text }).waitFor();
    const shown = await cell(item, column).textContent();
    if (shown !== text)
      throw new Error(`attempt ${item.attempt}'s ${column} shows "${shown}", not "${text}"`);
  };
  // the failed attempt: when it went out, in the viewer's time; nothing more is due for it
  if (!failedItem.sentAt) throw new Error('the failed attempt has no sentAt');
  await expectCell(failedItem, 'sent', await localTimeIn(page, failedItem.sentAt));
  await expectCell(failedItem, 'next-attempt', '—');
  // its retry, an hour away (WEBHOOK_RETRY_SCHEDULE): not sent yet, and when it is due
  await expectCell(waitingItem, 'sent', 'waiting');
  await expectCell(waitingItem, 'next-attempt', await localTimeIn(page, waitingItem.nextAttemptAt));
  // the message id: shortened in its column, whole in the title and in the attempt's detail
  const messageCode = messageRow.locator('td[data-column="message"] code');
  const shortId = await messageCode.textContent();
  if ((await messageCode.getAttribute('title')) !== failedItem.messageId)
    throw new Error('the message column does not carry the whole id in its title');
  if (shortId.length >= failedItem.messageId.length || !shortId.includes(failedItem.messageId.slice(-8)))
    throw new Error(`the message column shows "${shortId}" for ${failedItem.messageId}`);
  if ((await page.getByTitle(failedItem.messageId).count()) < 1)
    throw new Error('the message id is not findable');
  await card.locator(`tr[data-delivery="${failedItem.id}"]`).getByRole('button', { name: 'Details' }).click();
  await card.getByTestId('message-id').filter({ hasText: failedItem.messageId }).waitFor();
  // the test route's messages are marked as tests and offer no Resend (the API refuses it)
  const testItems = log.items.filter((m) => m.test);
  if (testItems.length === 0) throw new Error('the log has no test message');
  for (const item of testItems) {
    const row = card.locator(`tr[data-message="${item.messageId}"]`);
    await row.locator('.badge.test').waitFor();
    if ((await row.getByRole('button', { name: 'Resend' }).count()) !== 0)
      throw new Error(`the test message ${item.messageId} offers a resend`);
  }

  await searchTheLog(page, card, failedMessage.messageId, demo.apiKey.key);

  // --- after recovery a resend succeeds: the log follows it by itself and the 24 h figure counts it
  const rateBeforeResend = await expectRateShown(card, listOfPro, hook, 'the 24 h figure with the failure');
  // a message row (an attempt's row has no event chip) of a tweet, in a state
  const tweetRows = (status) =>
    card
      .locator(`tr[data-message][data-status="${status}"]`)
      .filter({ has: page.locator('code.event', { hasText: /^tweet\.created$/ }) });
  await messageRow.getByRole('button', { name: 'Resend' }).click();
  await card
    .locator(`tr[data-message="${failedMessage.messageId}"][data-status="SUCCESS"]`)
    .waitFor({ timeout: 20_000 });
  const rateAfterResend = await expectRateChanged(card, listOfPro, hook, rateBeforeResend, 'the resend');
  await page.screenshot({ path: join(shots, '05-delivery-log.png'), fullPage: true });

  // --- the card and its log at phone width: the table scrolls inside its box, event names stay whole
  await page.setViewportSize({ width: 375, height: 1000 });
  await page.screenshot({ path: join(shots, '05b-delivery-log-375px.png'), fullPage: true });
  await expectNoSidewaysScroll(page, 'the delivery log at 375 px');
  await expectPhoneLayout(page, 'the delivery log at 375 px');
  await page.setViewportSize({ width: 1440, height: 1000 });

  // --- pause, miss two events, resume, and recover what was missed from the log's recover form
  const tenMinutesAgo = new Date(Date.now() - 10 * 60_000);
  const pad = (n) => String(n).padStart(2, '0');
  const localSince =
    `${tenMinutesAgo.getFullYear()}-${pad(tenMinutesAgo.getMonth() + 1)}-${pad(tenMinutesAgo.getDate())}` +
    `T${pad(tenMinutesAgo.getHours())}:${pad(tenMinutesAgo.getMinutes())}`;
  await card.getByRole('button', { name: 'Pause' }).click();
  // the state's badge itself: the recover form's checkbox label says "paused" too
  await card.locator('.badge', { hasText: /^paused$/ }).waitFor();
  for (const content of ['Missed while paused 1', 'Missed while paused 2'])
    await apiCall('POST', '/sdk/tweets', undefined, { content }, demo.apiKey.key);
  await card.getByRole('button', { name: 'Resume' }).click();
  await card.locator('.badge', { hasText: /^active$/ }).waitFor();
  const beforeRecover = received.length;
  if (!(await card.getByLabel('Recover failed since').isVisible()))
    await card.getByRole('button', { name: 'Delivery log' }).click();
  await card.getByLabel('Recover failed since').fill(localSince);
  await card.getByLabel('and events missed while paused or disabled').check();
  // the tweets' messages that had succeeded: the two recovered ones are new messages beside them
  const succeeded = () => tweetRows('SUCCESS').evaluateAll((els) => els.map((el) => el.dataset.message));
  const succeededBefore = new Set(await succeeded());
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
  // their attempts are counted on the card once the log has followed them to their end
  await waitFor(
    async () => (await succeeded()).filter((id) => !succeededBefore.has(id)).length >= 2,
    'the recovered deliveries in the log without a refresh',
  );
  await expectRateChanged(card, listOfPro, hook, rateAfterResend, 'the recovered deliveries');
  await page.screenshot({ path: join(shots, '05a-recovered-missed.png'), fullPage: true });
  await checkEndpointFigures(page, card, listOfPro, hook);
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
  const portalHeading = phone.getByRole('heading', { name: 'Webhooks · Demo Pro' });
  // the endpoints list, shown (the seed's endpoint, subscribed to every event, is in it)
  const endpointsShown = () => phone.locator('li[data-endpoint]').first().waitFor();
  await endpointsShown();
  await phone.screenshot({ path: join(shots, '09-link-sign-in-375px.png'), fullPage: true });
  await expectPhoneLayout(phone, 'the endpoints at 375 px');

  // --- a reload of the tab keeps the portal session: in sessionStorage only, never localStorage or a cookie
  const hooksOfPro = `/communities/${pro.id}/webhooks`;
  await waitFor(async () => linked.token !== null, 'the portal session to call the API');
  const portalToken = linked.token;
  const kept = await storedIn(phone);
  if (kept?.token !== portalToken || !(kept.expiresAt > Date.now()))
    throw new Error(`the tab keeps ${JSON.stringify(kept)}, not the portal session with its expiry`);
  await phone.reload();
  await portalHeading.waitFor();
  await endpointsShown();
  if ((await phone.getByLabel('E-mail').count()) !== 0) throw new Error('the reload shows the sign-in form');
  if ((await storedIn(phone))?.token !== portalToken) throw new Error('the reload changed the kept session');

  // --- Sign out ends the portal-link session too, and the tab forgets it: a reload stays signed out
  if ((await statusWith('GET', hooksOfPro, portalToken)) !== 200) throw new Error('portal session refused');
  await signOutOf(phone);
  const afterSignOut = await statusWith('GET', hooksOfPro, portalToken);
  if (afterSignOut !== 401) throw new Error(`the portal session answers ${afterSignOut} after Sign out`);
  if ((await storedIn(phone)) !== null) throw new Error('the tab still keeps the session after Sign out');
  await phone.reload();
  await phone.getByLabel('E-mail').waitFor();
  if ((await portalHeading.count()) !== 0) throw new Error('a reload after Sign out opened the portal');
  await phone.goto('about:blank');
  await phone.goto(link.url);
  await phone.getByText('This portal link cannot be used').waitFor();
  await phone.screenshot({ path: join(shots, '10-used-link.png'), fullPage: true });

  // --- a kept session ends at its expiry: dropped while the page is open, and on a load after it; and a
  // new link in the same tab replaces the kept session, which is ended on the server
  const again = await apiCall('POST', '/auth/login', undefined, {
    email: owner,
    password: demo.password,
    communityId: pro.id,
  });
  const [replacedLink, expiringLink, expiredLink] = await Promise.all(
    [1, 2, 3].map(() =>
      apiCall('POST', `/communities/${pro.id}/webhooks/portal-links`, again.accessToken, {}),
    ),
  );
  const openLink = async (url) => {
    await phone.goto('about:blank');
    await phone.goto(url);
    await portalHeading.waitFor();
    await endpointsShown();
    return (await storedIn(phone)).token;
  };
  const replacedToken = await openLink(replacedLink.url);
  await openLink(expiringLink.url);
  await waitFor(
    async () => (await statusWith('GET', hooksOfPro, replacedToken)) === 401,
    'the replaced portal session to be ended',
  );
  await expireStoredIn(phone, 4_000);
  await phone.reload();
  await portalHeading.waitFor();
  await phone.getByText('Your portal session has expired. Open a new portal link to continue.').waitFor();
  if ((await storedIn(phone)) !== null) throw new Error('the tab keeps a session past its expiry');
  await openLink(expiredLink.url);
  await expireStoredIn(phone, -1_000);
  await phone.reload();
  await phone.getByText('Your portal session has expired. Open a new portal link to continue.').waitFor();
  await phone.getByLabel('E-mail').waitFor();
  if ((await storedIn(phone)) !== null) throw new Error('an expired session is still kept after a load');

  if (iconRefusals.length > 0) throw new Error(`the icon was refused: ${iconRefusals.join(', ')}`);

  const enterprise = demo.communities.find((c) => c.slug === 'demo-enterprise');
  await embeddedPortal({ browser, owner, password: demo.password, pro, enterprise });

  if (process.argv.includes('--update-docs')) {
    // the screenshots the README and docs/api.md show, each made by the step above that checks it
    for (const [shot, doc] of [
      ['05-delivery-log.png', 'portal-delivery-log.png'],
      ['40-messages.png', 'portal-messages.png'],
      ['30-endpoint-figures.png', 'portal-figures.png'],
      ['20-embedded.png', 'portal-embedded.png'],
    ])
      copyFileSync(join(shots, shot), join(root, 'docs', doc));
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
  await deleteRunKeys(env.REDIS_URL ?? 'redis://127.0.0.1:6379', env.REDIS_KEY_PREFIX);
  rmSync(stateDir, { recursive: true, force: true });
}
