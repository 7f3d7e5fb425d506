// The webhook portal in a real browser (docs/api.md#webhook-portal): Debian's Chromium driven by
// playwright-core against the compiled API and worker (`npm run build` first) on a throw-away database, with
// a local receiver that can be told to fail. Screenshots go to portal-screenshots/ (git-ignored); with
// --update-docs the ones the README and docs/api.md show are copied to docs/portal-*.png.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { deleteRunKeys } from './redis-run-keys.js';
import {
  RECEIVER_PORT,
  apiCall,
  base,
  children,
  database,
  env,
  expireStoredIn,
  ownLogin,
  receiver,
  root,
  shots,
  signOutOf,
  sql,
  start,
  stateDir,
  statusWith,
  storedIn,
  waitFor,
  watchSession,
} from './portal-browser/harness.mjs';
import { expectPhoneLayout } from './portal-browser/card-checks.mjs';
import { embeddedPortal } from './portal-browser/embedded.mjs';
import { enterpriseDoors } from './portal-browser/enterprise-doors.mjs';
import { passwordSession } from './portal-browser/password-session.mjs';

const { fetch } = globalThis;

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

  await passwordSession({ page, demo, owner, pro, signedIn, expectText, ownerToken, listOfPro });
  // as the ADMIN: the test route's rate limit is per caller in a community, and the owner's sends above used it up
  const admin = demo.logins.find((l) => l.role === 'ADMIN').email;
  await enterpriseDoors({ browser, demo, manager: admin, listOfPro });

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
  // a reload keeps the page too: the address names it, with the page's community
  await phone.getByRole('link', { name: 'Replays', exact: true }).click();
  await phone.getByRole('heading', { name: 'Replays', exact: true }).waitFor();
  const replaysAddress = new URL(phone.url());
  if (
    replaysAddress.pathname !== '/portal/replays' ||
    replaysAddress.searchParams.get('community') !== pro.id
  )
    throw new Error(`the Replays page's address is ${phone.url()}`);
  await phone.reload();
  await phone.getByRole('heading', { name: 'Replays', exact: true }).waitFor();
  if (phone.url() !== replaysAddress.href) throw new Error(`the reload went to ${phone.url()}`);
  const current = await phone
    .getByRole('link', { name: 'Replays', exact: true })
    .getAttribute('aria-current');
  if (current !== 'page')
    throw new Error('after the reload the Replays tab is not marked as the current page');
  await phone.getByRole('link', { name: 'Endpoints', exact: true }).click();
  await endpointsShown();

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
