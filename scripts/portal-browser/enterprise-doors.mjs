// The endpoint form's Client certificate and OAuth 2.0 sections in the browser test
// (docs/api.md#receivers-behind-enterprise-doors).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_PORT, base, shots, waitFor } from './harness.mjs';
import { expectNoSidewaysScroll, localTimeIn } from './card-checks.mjs';

const CLIENT_SECRET = 'oauth-client-secret-7f3e9a1c';

/** A CA, a receiver certificate for 127.0.0.1 and client certificates, made with openssl for the run. */
function makePki() {
  const dir = mkdtempSync(join(tmpdir(), 'portal-pki-'));
  const run = (...args) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  const read = (name) => readFileSync(join(dir, name), 'utf8');
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  run(
    'req',
    '-x509',
    ...ec,
    '-days',
    '2',
    '-subj',
    '/CN=portal-test-ca',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
  );
  const leaf = (name, subject, days, ext) => {
    run('req', ...ec, '-subj', subject, '-keyout', `${name}.key`, '-out', `${name}.csr`);
    writeFileSync(join(dir, `${name}.ext`), ext);
    run(
      ...['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial'],
      ...['-days', String(days), '-extfile', `${name}.ext`, '-out', `${name}.pem`],
    );
    return { cert: read(`${name}.pem`), key: read(`${name}.key`), keyFile: join(dir, `${name}.key`) };
  };
  run('genpkey', '-algorithm', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'stray.key');
  return {
    ca: read('ca.pem'),
    server: leaf('server', '/CN=127.0.0.1', 2, 'subjectAltName=IP:127.0.0.1\n'),
    // expires within 30 days: the form and the card warn
    soon: leaf('soon', '/CN=portal-client-soon/O=Browser Test', 20, 'extendedKeyUsage=clientAuth\n'),
    later: leaf('later', '/CN=portal-client-later/O=Browser Test', 400, 'extendedKeyUsage=clientAuth\n'),
    strayKey: read('stray.key'),
  };
}

/**
 * Creates an endpoint with a client certificate and OAuth 2.0 in the form, sends it a test (an https receiver
 * that demands the certificate, a token endpoint of the test's), edits and removes both. The API's 400s show
 * at their fields; reads show subject, fingerprint and expiry (with the 30-day warning); the key and the
 * client secret are never on the page.
 */
export async function enterpriseDoors({ browser, demo, manager, listOfPro }) {
  const pki = makePki();
  const receiverPort = API_PORT + 3;
  const tokenPort = API_PORT + 4;
  const arrived = [];
  const receiver = createHttpsServer(
    { cert: pki.server.cert, key: pki.server.key, ca: pki.ca, requestCert: true, rejectUnauthorized: true },
    (request, response) => {
      arrived.push({
        cn: request.socket.getPeerCertificate()?.subject?.CN ?? null,
        authorization: request.headers.authorization,
      });
      request.resume();
      request.on('end', () => response.writeHead(200).end('{"ok":true}'));
    },
  );
  let tokensIssued = 0;
  const tokenServer = createHttpServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const basic = `Basic ${Buffer.from(`portal-client:${CLIENT_SECRET}`).toString('base64')}`;
      if (request.headers.authorization !== basic) return response.writeHead(401).end();
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          access_token: `portal-tok-${++tokensIssued}`,
          token_type: 'Bearer',
          expires_in: 3600,
        }),
      );
    });
  });
  await new Promise((r) => receiver.listen(receiverPort, '127.0.0.1', r));
  await new Promise((r) => tokenServer.listen(tokenPort, '127.0.0.1', r));
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  try {
    const neverShown = async (what) => {
      const content = await page.content();
      for (const [name, text] of [
        ['client secret', CLIENT_SECRET],
        ['soon key', pki.soon.key.split('\n')[1]],
        ['later key', pki.later.key.split('\n')[1]],
      ])
        if (content.includes(text)) throw new Error(`the ${name} is on the page ${what}`);
    };
    await page.goto(`${base}/portal`);
    await page.getByLabel('E-mail').fill(manager);
    await page.getByLabel('Password').fill(demo.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: /demo-pro/ }).click();
    await page.getByRole('button', { name: 'Add endpoint' }).waitFor();

    // --- create: a key that is not the certificate's is refused beside the section
    const hook = `https://127.0.0.1:${receiverPort}/enterprise-hook`;
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByLabel('URL').fill(hook);
    await page.getByRole('checkbox', { name: /tweet\.created/ }).check();
    await page.getByRole('button', { name: 'Add client certificate' }).click();
    await page.locator('#tls-certificate').fill(pki.soon.cert);
    await page.locator('#tls-key').fill(pki.strayKey);
    await page.locator('#tls-ca').fill(pki.ca);
    await page.getByRole('button', { name: 'Add OAuth 2.0' }).click();
    await page.getByLabel('Token URL').fill(`http://127.0.0.1:${tokenPort}/token`);
    await page.getByLabel('Client id').fill('portal-client');
    await page.getByLabel('Client secret', { exact: true }).fill(CLIENT_SECRET);
    await page.getByLabel('Scope (optional)').fill('hooks.write');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page
      .locator('#tls-error', { hasText: 'tls.clientKey does not match tls.clientCertificate' })
      .waitFor();
    await page.getByRole('alert').filter({ hasText: 'Not saved' }).waitFor();
    // the right key, uploaded as a file; then a token URL the API refuses shows at the token URL
    await page.getByLabel(/upload a file for Private key/).setInputFiles(pki.soon.keyFile);
    // the page reads the file asynchronously
    await waitFor(
      async () => (await page.locator('#tls-key').inputValue()) === pki.soon.key,
      'the key file to be read into the form',
      10_000,
    );
    await page.getByLabel('Token URL').fill(`ftp://127.0.0.1:${tokenPort}/token`);
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page.locator('#oauth-token-url-error', { hasText: /tokenUrl/ }).waitFor();
    if ((await page.locator('#tls-error').textContent()) !== '') throw new Error('the tls message stayed');
    await page.screenshot({ path: join(shots, '50-enterprise-refused.png'), fullPage: true });
    await page.getByLabel('Token URL').fill(`http://127.0.0.1:${tokenPort}/token`);
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    const card = page.locator(`li[data-endpoint="${hook}"]`);
    await card.getByRole('button', { name: 'I have saved it' }).click();

    // --- the read-back: subject and expiry with the warning (20 days left), OAuth without its secret
    const stored = (await listOfPro()).items.find((w) => w.url === hook);
    if (stored.auth?.clientSecret === CLIENT_SECRET) throw new Error('the API read shows the client secret');
    const expiry = await localTimeIn(page, stored.tls.clientCertificate.notAfter);
    await card
      .getByTestId('card-certificate')
      .filter({ hasText: 'CN=portal-client-soon, O=Browser Test' })
      .waitFor();
    await card.getByTestId('card-certificate').filter({ hasText: expiry }).waitFor();
    await card
      .getByTestId('card-certificate-warning')
      .filter({ hasText: /expires in (19|20) days/ })
      .waitFor();
    await card.getByTestId('card-oauth').filter({ hasText: 'portal-client' }).waitFor();
    await neverShown('after the create');

    // --- a test goes out with the client certificate and a bearer token from the token endpoint
    await card.getByRole('button', { name: 'Send test' }).click();
    await card.getByRole('status').getByText('SUCCESS').waitFor();
    await waitFor(async () => arrived.length > 0, 'the test at the mTLS receiver');
    const [first] = arrived;
    if (first.cn !== 'portal-client-soon' || first.authorization !== 'Bearer portal-tok-1')
      throw new Error(`the receiver saw ${JSON.stringify(first)}`);

    // --- edit: the form shows what is stored (fingerprint, expiry, warning; the secret as set only)
    await card.getByRole('button', { name: 'Edit' }).click();
    const summary = page.getByTestId('certificate-summary');
    const fingerprint = await summary.getByTestId('certificate-fingerprint').textContent();
    if (fingerprint !== stored.tls.clientCertificate.fingerprintSha256)
      throw new Error(`the form shows the fingerprint ${fingerprint}`);
    if ((await summary.getByTestId('certificate-expiry').textContent()) !== expiry)
      throw new Error('the form does not show the expiry');
    await summary.getByTestId('certificate-warning').waitFor();
    await page.getByTestId('oauth-secret-state').filter({ hasText: 'Client secret: set' }).waitFor();
    if ((await page.getByLabel('New client secret').inputValue()) !== '')
      throw new Error('the secret box is not empty');
    await neverShown('in the edit form');
    await page.setViewportSize({ width: 375, height: 1000 });
    await page.screenshot({ path: join(shots, '51-enterprise-form-375px.png'), fullPage: true });
    await expectNoSidewaysScroll(page, 'the endpoint form with a client certificate at 375 px');
    await page.setViewportSize({ width: 1440, height: 1000 });

    // --- replace the certificate (pasted) and the scope; the secret left empty is kept
    await page.getByRole('button', { name: 'Replace certificate' }).click();
    await page.locator('#tls-certificate').fill(pki.later.cert);
    await page.locator('#tls-key').fill(pki.later.key);
    await page.locator('#tls-ca').fill(pki.ca);
    await page.getByLabel('Scope (optional)').fill('hooks.write hooks.read');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Edit endpoint' }).waitFor({ state: 'detached' });
    await card.getByTestId('card-certificate').filter({ hasText: 'CN=portal-client-later' }).waitFor();
    if ((await card.getByTestId('card-certificate-warning').count()) !== 0)
      throw new Error('a certificate valid for 400 days is shown with a warning');
    const replaced = (await listOfPro()).items.find((w) => w.url === hook);
    if (replaced.tls.clientCertificate.fingerprintSha256 === fingerprint) throw new Error('not replaced');
    if (
      replaced.auth.scope !== 'hooks.write hooks.read' ||
      replaced.auth.clientSecret !== stored.auth.clientSecret
    )
      throw new Error(`the API keeps auth as ${JSON.stringify(replaced.auth)}`);
    await page.screenshot({ path: join(shots, '52-enterprise-card.png'), fullPage: true });
    // the kept secret still gets a token, and the new certificate is presented
    await card.getByRole('button', { name: 'Send test' }).click();
    await waitFor(async () => arrived.length > 1, 'the second test at the mTLS receiver');
    if (
      arrived[1].cn !== 'portal-client-later' ||
      !arrived[1].authorization?.startsWith('Bearer portal-tok-')
    )
      throw new Error(`the receiver saw ${JSON.stringify(arrived[1])}`);

    // --- remove both
    await card.getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('button', { name: 'Remove certificate' }).click();
    await page.getByTestId('certificate-removed').waitFor();
    await page.getByRole('button', { name: 'Remove OAuth 2.0' }).click();
    await page.getByTestId('oauth-removed').waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Edit endpoint' }).waitFor({ state: 'detached' });
    await card.getByTestId('card-certificate').waitFor({ state: 'detached' });
    if ((await card.getByTestId('card-oauth').count()) !== 0) throw new Error('the card still shows OAuth');
    const removed = (await listOfPro()).items.find((w) => w.url === hook);
    if (removed.tls !== null || removed.auth !== null)
      throw new Error(
        `the API keeps tls ${JSON.stringify(removed.tls)}, auth ${JSON.stringify(removed.auth)}`,
      );
    await neverShown('at the end');
  } finally {
    await page.close();
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
    tokenServer.closeAllConnections();
    await new Promise((r) => tokenServer.close(r));
  }
}
