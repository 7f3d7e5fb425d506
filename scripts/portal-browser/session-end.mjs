// The end of the browser test's password session (scripts/portal-browser/password-session.mjs).
import { join } from 'node:path';
import { shots, signOutOf, statusWith, waitFor } from './harness.mjs';

/**
 * The portal renews an expired access token with its refresh token, and Sign out ends the session on the
 * server: every token the page held is refused afterwards.
 */
export async function renewalAndSignOut({ page, signedIn }) {
  // --- the first access token expires (JWT_EXPIRES_IN); the portal renews it with its refresh token
  await waitFor(
    async () => (await statusWith('GET', '/admin/sdk/me', signedIn.first)) === 401,
    'the first access token to expire',
  );
  await page.getByRole('link', { name: 'Event catalog', exact: true }).click();
  await page.getByRole('link', { name: 'Endpoints', exact: true }).click();
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
}
