// An endpoint's figures page and its delivery log's search, as the browser test checks them.
import { join } from 'node:path';
import { apiCall, shots, waitFor } from './harness.mjs';
import { expectNoSidewaysScroll, expectPhoneLayout, localTimeIn, refreshLog } from './card-checks.mjs';

export async function checkEndpointFigures(page, card, list, url) {
  const refused = [];
  const onConsole = (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
  };
  page.on('console', onConsole);
  await card.getByRole('link', { name: 'Figures', exact: true }).click();
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

  await figures.getByRole('link', { name: 'Back to endpoints', exact: true }).click();
  await card.getByRole('link', { name: 'Figures', exact: true }).waitFor();
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
export async function searchTheLog(page, card, messageId, apiKey) {
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
  // First and Last attempt say when attempts were SENT: the first attempt's sentAt, and (its retry still
  // waiting) the last attempt that went out, not the retry's createdAt (when it was written)
  const firstShown = await row.locator('td[data-column="first-attempt"]').textContent();
  const firstAttempt = message.attempts.at(-1);
  if (firstShown !== (await localTimeIn(page, firstAttempt.sentAt)))
    throw new Error(`the message's first attempt shows "${firstShown}", not when it was sent`);
  const lastShown = await row.locator('td[data-column="last-attempt"]').textContent();
  if (message.lastSentAt !== null || lastShown !== (await localTimeIn(page, sent.sentAt)))
    throw new Error(
      `the message's last attempt shows "${lastShown}", not when its last sent attempt went out`,
    );
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
