// The portal embedded in another site's page, as the browser test checks it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { API_PORT, STORAGE_KEY, apiCall, base, ownLogin, shots } from './harness.mjs';

const { fetch } = globalThis;

/**
 * The portal embedded in another site's page (docs/api.md#embedding-the-portal). The site is node's https
 * server on API_PORT + 2 with a certificate `openssl` makes for the run (the API takes only https origins;
 * the browser contexts accept the certificate), reached under two origins: https://localhost:<port>, which
 * demo-pro allows, and https://127.0.0.1:<port>, which it does not. Its page frames whatever link it is given.
 * The framed portal is a third party there: Chromium gives it sessionStorage only where third-party cookies are
 * allowed, as in a regular profile by default (a persistent context with that preference), and denies it in a
 * private window (the run's own contexts), where the portal still works but a reload asks for a new link.
 */
export async function embeddedPortal({ browser, owner, password, pro, enterprise }) {
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
      const current = getComputedStyle(document.querySelector("nav a[aria-current='page']"));
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
