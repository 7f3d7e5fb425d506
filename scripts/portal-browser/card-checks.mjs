// What the browser test checks on an endpoint's card: its headers, tests, 24 h figures, and no sideways
// scrolling at phone width.
import { received, waitFor } from './harness.mjs';

export const TENANT_TOKEN = 'tenant-token-secret-1234';

/** The card lists exactly these headers with these masked values, and never a value in clear. */
export async function expectHeadersOnCard(card, masked) {
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
export async function sendTest(card, expected) {
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
export async function sendExample(card, eventType) {
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
export async function expectNoSidewaysScroll(page, what) {
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
export function localTimeIn(page, iso) {
  return page.evaluate(
    (value) => new Date(value).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' }),
    iso,
  );
}

/** A card's 24 h figure as the portal words it, from the list route's counts. */
export function rateText({ attempts24h: attempts, succeeded24h: succeeded }) {
  if (attempts === 0) return 'no attempts in 24 h';
  return `${Math.round((succeeded / attempts) * 100)} % of ${attempts} in 24 h`;
}

/**
 * Waits until the card's 24 h figure is what the API counts now, and returns it: the page must have read
 * the list again after the attempts it caused (no reload of the page in between).
 */
/** As expectRateShown, and the figure must differ from `before`: the attempts `after` names were counted. */
export async function expectRateChanged(card, list, url, before, after) {
  const shown = await expectRateShown(card, list, url, `the 24 h figure to count ${after}`);
  if (shown === before) throw new Error(`the 24 h figure stayed ${before} after ${after}`);
  return shown;
}

export async function expectRateShown(card, list, url, what) {
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
export async function refreshLog(card) {
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
export async function expectPhoneLayout(page, what) {
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
