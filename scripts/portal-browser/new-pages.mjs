// The portal's filter editor, delivery settings, Replays page and Find by resource (docs/api.md#webhook-portal),
// in the browser test's password session, on the endpoint it created (`hook`): each piece checked against what
// the API then holds or answers.
import { join } from 'node:path';

/** A datetime-local value (the viewer's time zone) for an instant. */
export function localInput(date) {
  const pad = (n) => String(n).padStart(2, '0');
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}`
  );
}

/** Edit: a filter with a bad node (the server's 400 shown at that row), fixed; delivery settings saved. */
async function filterAndSettings({ page, card, hook, list, apiKey, apiCall, received, waitFor, shots }) {
  await card.getByRole('button', { name: 'Edit' }).click();
  const form = page.locator('form', { has: page.getByRole('heading', { name: 'Edit endpoint' }) });
  await form.getByLabel(/^Retry schedule/).fill('30s, 5m');
  await form.getByLabel(/^Timeout of each send/).fill('5000');
  await form.getByRole('button', { name: 'Add condition' }).click();
  await form.getByLabel('Field of condition 1').fill('type');
  await form.getByLabel('Value of condition 1').fill('tweet.created');
  await form.getByRole('button', { name: 'Add condition' }).click();
  // not a body field: the API refuses it, naming the node's path
  await form.getByLabel('Field of condition 2').fill('author');
  await form.getByLabel('Value of condition 2').fill('someone');
  const json = JSON.parse(await form.getByTestId('filter-json').textContent());
  const expected = { $and: [{ type: { $eq: 'tweet.created' } }, { author: { $eq: 'someone' } }] };
  if (JSON.stringify(json) !== JSON.stringify(expected))
    throw new Error(`the filter's JSON shows ${JSON.stringify(json)}`);
  const refused = page.waitForResponse((r) => r.request().method() === 'PATCH');
  await form.getByRole('button', { name: 'Save' }).click();
  const answer = await (await refused).json();
  const detail = answer.details?.[0];
  if (detail?.field !== 'filter.$and[1].author') throw new Error(`the API refused ${JSON.stringify(answer)}`);
  const rowError = form.locator('[data-condition="1"] [data-testid="filter-row-error"]');
  await rowError.waitFor();
  const shown = await rowError.textContent();
  if (!shown.includes(detail.message))
    throw new Error(`condition 2 shows "${shown}", not the API's "${detail.message}" at ${detail.field}`);
  if ((await form.locator('[data-condition="0"] [data-testid="filter-row-error"]').count()) !== 0)
    throw new Error('the error shows at the first condition too');
  await form.getByText('Not saved: see the message beside the field above.').waitFor();
  await page.screenshot({ path: join(shots, '50-filter-error.png'), fullPage: true });

  // fixed: only tweets whose content starts with "Hello"
  await form.getByLabel('Field of condition 2').fill('data.tweet.content');
  await form.getByLabel('Operator of condition 2').selectOption('$startsWith');
  await form.getByLabel('Value of condition 2').fill('Hello');
  await form.getByRole('button', { name: 'Save' }).click();
  await form.waitFor({ state: 'detached' });
  await card
    .getByTestId('delivery-settings')
    .filter({ hasText: 'Retries after: 30s, 5m · Timeout: 5000 ms' })
    .waitFor();
  await card.getByText('Filtered: only matching events are sent').waitFor();
  const saved = (await list()).items.find((w) => w.url === hook);
  const savedFilter = {
    $and: [{ type: { $eq: 'tweet.created' } }, { data: { tweet: { content: { $startsWith: 'Hello' } } } }],
  };
  if (
    JSON.stringify(saved.retrySchedule) !== '["30s","5m"]' ||
    saved.timeoutMs !== 5000 ||
    JSON.stringify(saved.filter) !== JSON.stringify(savedFilter)
  )
    throw new Error(`the API holds ${JSON.stringify([saved.retrySchedule, saved.timeoutMs, saved.filter])}`);

  // the filter applies: a tweet that does not match is never sent, the one raised after it is
  const before = received.length;
  const skipped = await apiCall(
    'POST',
    '/sdk/tweets',
    undefined,
    { content: 'Filtered out by the portal' },
    apiKey,
  );
  const matched = await apiCall('POST', '/sdk/tweets', undefined, { content: 'Hello, filtered in' }, apiKey);
  const sent = () => received.slice(before).filter((r) => r.url === new URL(hook).pathname);
  await waitFor(async () => sent().some((r) => r.body.includes('Hello, filtered in')), 'the matching tweet');
  if (sent().some((r) => r.body.includes('Filtered out by the portal')))
    throw new Error('the tweet the filter leaves out was sent');
  return { matched, skipped };
}

/** Edit again: no conditions and empty settings, so the rest of the run sees every event on the defaults. */
async function clearFilterAndSettings({ page, card, hook, list }) {
  await card.getByRole('button', { name: 'Edit' }).click();
  const form = page.locator('form', { has: page.getByRole('heading', { name: 'Edit endpoint' }) });
  await form.getByRole('button', { name: 'Remove condition 2' }).click();
  await form.getByRole('button', { name: 'Remove condition 1' }).click();
  await form.getByTestId('filter-json').filter({ hasText: 'No filter' }).waitFor();
  await form.getByLabel(/^Retry schedule/).fill('');
  await form.getByLabel(/^Timeout of each send/).fill('');
  await form.getByRole('button', { name: 'Save' }).click();
  await form.waitFor({ state: 'detached' });
  await card.getByTestId('delivery-settings').filter({ hasText: "Retries after: the platform's" }).waitFor();
  const saved = (await list()).items.find((w) => w.url === hook);
  if (saved.filter !== null || saved.retrySchedule !== null || saved.timeoutMs !== null)
    throw new Error(`the cleared endpoint holds ${JSON.stringify(saved)}`);
}

/** Find by resource: a tweet's id finds its message at the endpoint; the filtered-out tweet's finds none. */
async function findByResource({ page, hook, matched, skipped, shots }) {
  await page.getByRole('link', { name: 'Find by resource', exact: true }).click();
  await page.getByLabel(/^Resource id/).fill(matched.id);
  await page.getByRole('button', { name: 'Find' }).click();
  const results = page.locator(`[data-results-for="${matched.id}"]`);
  const found = results.locator('[data-found]').filter({ has: page.locator(`[data-found-at="${hook}"]`) });
  await found.first().waitFor();
  if (!(await found.first().textContent()).includes('tweet.created'))
    throw new Error('the message found is not the tweet.created of that tweet');
  if (new URL(page.url()).searchParams.get('subject') !== matched.id)
    throw new Error(`the search is not in the address: ${page.url()}`);
  await page.screenshot({ path: join(shots, '51-find-by-resource.png'), fullPage: true });
  await page.getByLabel(/^Resource id/).fill(skipped.id);
  await page.getByRole('button', { name: 'Find' }).click();
  // the seed's endpoint takes every event, so the filtered-out tweet may be found there, never at the filtered one
  const other = page.locator(`[data-results-for="${skipped.id}"]`);
  await other.waitFor();
  if ((await other.locator(`[data-found-at="${hook}"]`).count()) !== 0)
    throw new Error('the tweet the filter left out shows at the filtered endpoint');
}

/** Replays: the dry run's counts per endpoint first (the API's own), then one created, shown, cancelled. */
async function replays({ page, hook, pro, list, apiCall, ownerToken, shots }) {
  await page.getByRole('link', { name: 'Replays', exact: true }).click();
  const since = new Date(Date.now() - 30 * 60_000);
  await page.getByLabel('Raised since').fill(localInput(since));
  await page.getByLabel('Latest attempt').selectOption('ANY');
  await page.getByRole('button', { name: 'Count (dry run)' }).click();
  const preview = page.getByTestId('replay-preview');
  await preview.waitFor();
  const window = { since: new Date(localInput(since)).toISOString(), status: 'ANY', dryRun: true };
  const dry = await apiCall('POST', `/communities/${pro.id}/webhooks/replays`, await ownerToken(), window);
  const endpointId = (await list()).items.find((w) => w.url === hook).id;
  const shownCount = await preview.locator(`[data-endpoint-count="${hook}"] td`).nth(1).textContent();
  if (!(dry.byEndpoint[endpointId] > 0) || Number(shownCount) !== dry.byEndpoint[endpointId])
    throw new Error(
      `the dry run shows ${shownCount} for the endpoint, the API counts ${dry.byEndpoint[endpointId]}`,
    );
  if (!(await preview.textContent()).includes(`${dry.count} message(s) would be sent again`))
    throw new Error(`the dry run's total is not ${dry.count}`);
  await page.screenshot({ path: join(shots, '52-replay-dry-run.png'), fullPage: true });
  await page.getByRole('button', { name: 'Start replay' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: `Replay started: ${dry.count} message(s) to queue.` })
    .waitFor();
  const item = page.locator('li[data-replay]').first();
  await item
    .getByTestId('replay-progress')
    .filter({ hasText: `of ${dry.count} taken` })
    .waitFor();
  if (!(await item.textContent()).includes(hook))
    throw new Error('the replay does not say which endpoints it replays to');
  await page.screenshot({ path: join(shots, '53-replays.png'), fullPage: true });
  await item.getByRole('button', { name: 'Cancel replay' }).click();
  await page.locator('li[data-replay][data-state="cancelled"]').first().waitFor();
  const [latest] = (await apiCall('GET', `/communities/${pro.id}/webhooks/replays`, await ownerToken()))
    .items;
  if (latest.state !== 'cancelled' || latest.id !== (await item.getAttribute('data-replay')))
    throw new Error(`the API holds the replay ${JSON.stringify(latest)}`);
}

/** Every new piece, in the order a team meets them; the page ends on the endpoints list. */
export async function checkNewPages(context) {
  const { page, hook } = context;
  const card = page.locator(`li[data-endpoint="${hook}"]`);
  const tweets = await filterAndSettings({ ...context, card });
  await clearFilterAndSettings({ ...context, card });
  await findByResource({ ...context, ...tweets });
  await replays(context);
  await page.getByRole('link', { name: 'Endpoints', exact: true }).click();
  await card.waitFor();
}
