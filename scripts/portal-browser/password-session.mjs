// The browser test's password session (scripts/portal-browser-test.mjs).
import { join } from 'node:path';
import {
  RECEIVER_PORT,
  apiCall,
  base,
  received,
  receiverState,
  shots,
  storedIn,
  waitFor,
} from './harness.mjs';
import {
  TENANT_TOKEN,
  expectHeadersOnCard,
  expectNoSidewaysScroll,
  expectPhoneLayout,
  expectRateChanged,
  expectRateShown,
  localTimeIn,
  refreshLog,
  sendExample,
  sendTest,
} from './card-checks.mjs';
import { checkEndpointFigures, searchTheLog } from './figures-and-log.mjs';
import { checkNewPages } from './new-pages.mjs';
import { renewalAndSignOut } from './session-end.mjs';

/**
 * The password session's part of the run: sign-in and the picker, an endpoint created, rotated, tested and
 * edited, its log searched, resent and recovered, its figures, the new pages, delete, renewal and Sign out.
 */
export async function passwordSession({
  page,
  demo,
  owner,
  pro,
  signedIn,
  expectText,
  ownerToken,
  listOfPro,
}) {
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
  receiverState.failing = true;
  receiverState.failingBody = JSON.stringify({
    error: 'receiver is down for the test',
    padding: 'z'.repeat(2000),
  });
  await card.getByRole('button', { name: 'Send test' }).click();
  const testResult = card.getByTestId('test-result');
  await testResult.getByRole('alert').filter({ hasText: 'Test delivery failed' }).waitFor();
  const failedTest = await testResult.textContent();
  for (const part of [
    'Response status503',
    'Errortarget answered HTTP 503',
    'Response body (beginning){"error":"receiver is down for the test"',
    `(${receiverState.failingBody.length} characters in all)`,
  ]) {
    if (!failedTest.includes(part)) throw new Error(`the failed test does not show "${part}": ${failedTest}`);
  }
  if (!/Duration\d+ ms/.test(failedTest)) throw new Error(`the failed test shows no duration: ${failedTest}`);
  if (failedTest.includes('z'.repeat(1000))) throw new Error('the failed test shows the whole response body');
  await page.screenshot({ path: join(shots, '04d-test-failed.png'), fullPage: true });
  receiverState.failing = false;
  await expectRateChanged(card, listOfPro, hook, rateBeforeTest, 'the failed test');

  // --- the receiver fails: the failure shows in the log, with when it was sent, and its retry waiting
  receiverState.failing = true;
  receiverState.failingBody = '{"error":"receiver is down for the test"}';
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
  receiverState.failing = false;
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
  await page.getByRole('link', { name: 'Event catalog', exact: true }).click();
  await page.screenshot({ path: join(shots, '06-catalog.png'), fullPage: true });
  await page.getByRole('link', { name: 'Verify signatures', exact: true }).click();
  await expectText('from community_platform import verify_webhook');
  await page.screenshot({ path: join(shots, '07-verify.png'), fullPage: true });
  await page.getByRole('link', { name: 'Endpoints', exact: true }).click();

  // --- the filter editor, delivery settings, Find by resource and Replays
  await checkNewPages({
    page,
    hook,
    pro,
    list: listOfPro,
    apiKey: demo.apiKey.key,
    apiCall,
    ownerToken,
    received,
    waitFor,
    shots,
  });

  // --- delete, confirmed
  page.once('dialog', (dialog) => dialog.accept());
  await page.locator(`li[data-endpoint="${hook}"]`).getByRole('button', { name: 'Delete' }).click();
  await page.locator(`li[data-endpoint="${hook}"]`).waitFor({ state: 'detached' });

  await renewalAndSignOut({ page, signedIn });
}
