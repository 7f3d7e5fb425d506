import { randomBytes } from 'node:crypto';
import { runCli } from '../../src/cli/main';
import { sealHeaders } from '../../src/modules/webhooks/core/secrets/endpoint-headers';
import { SecretKeyRing } from '../../src/common/crypto/secret-cipher';
import { WebhookSecretsService } from '../../src/modules/webhooks/core/secrets/webhook-secrets.service';
import { useTestApp } from '../utils/app';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { DELIVERY_TEST_ENV } from '../utils/worker';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;

/**
 * `webhooks:check-headers` (docs/operations.md#check-stored-custom-headers): finds the endpoints whose stored
 * custom headers break today's rules (rows from before a rule), names each header and never its value.
 */
describe('webhooks:check-headers', () => {
  const api = useTestApp(DELIVERY_TEST_ENV);

  async function cli(argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(['webhooks:check-headers', ...argv], {
      out: (line) => out.push(line),
      err: (line) => err.push(line),
      readStdin: async () => '',
      prompt: null,
    });
    return { code, out: out.join('\n'), err: err.join('\n'), all: [...out, ...err].join('\n') };
  }

  async function endpoint(communityId: string, token: string, headers: Record<string, string>) {
    const res = await call(api.app, 'POST', hooks(communityId), {
      token,
      body: { url: `http://127.0.0.1:9/${unique('hook')}`, events: ['tweet.created'], headers },
    });
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  }

  /** Writes a set as a row from before today's rules holds it: sealed as the service seals, never validated. */
  async function storeAsLegacy(endpointId: string, headers: Record<string, string>, ring?: SecretKeyRing) {
    const sealed = ring
      ? sealHeaders(ring, headers)
      : api.app.get(WebhookSecretsService).sealHeaders(headers);
    await api.prisma.$executeRaw`
      UPDATE webhook_endpoints SET custom_headers = ${JSON.stringify(sealed)}::jsonb WHERE id = ${endpointId}::uuid`;
  }

  it('lists each offending endpoint, its community and header names, never a value, and exits 1', async () => {
    const { community, token } = await memberWithToken(api.app, { plan: 'PRO', role: 'OWNER' });
    const secret = unique('legacy-secret');
    const good = await endpoint(community.id, token, { Authorization: `Bearer ${secret}` });
    const bad = await endpoint(community.id, token, { 'X-Ok': 'v' });
    await storeAsLegacy(bad, {
      'X-Ok': 'v',
      'X-Control': `a\u0001${secret}`,
      'X-Text': `café ${secret}`,
      Expect: '100-continue',
    });
    const locked = await endpoint(community.id, token, { 'X-Ok': 'v' });
    // sealed under a key the ring does not hold: nothing can be checked, and nothing can be sent
    await storeAsLegacy(locked, { 'X-Ok': 'v' }, new SecretKeyRing([randomBytes(32)]));

    const res = await cli(['--community', community.slug]);
    expect(res.code).toBe(1);
    const lines = res.out.split('\n').filter((line) => line.startsWith('endpoint '));
    const about = (id: string) => lines.filter((line) => line.includes(id));
    expect(about(good)).toEqual([]);
    expect(about(bad)).toHaveLength(3);
    for (const name of ['X-Control', 'X-Text', 'Expect'])
      expect(about(bad).some((line) => line.includes(`header ${name}:`))).toBe(true);
    for (const line of about(bad)) expect(line).toContain(`(community ${community.slug}, ${community.id})`);
    expect(about(locked)).toEqual([expect.stringContaining('could not be decrypted')]);
    expect(res.all).not.toContain('X-Ok');
    expect(res.all).not.toContain(secret);
    expect(res.all).not.toContain('100-continue');
    expect(res.err).toContain('2 of 3 endpoints with custom headers');

    // read-only: the rows are as they were
    const [row] = await api.prisma.$queryRaw<{ custom_headers: { ciphertext: string } }[]>`
      SELECT custom_headers FROM webhook_endpoints WHERE id = ${bad}::uuid`;
    expect(api.app.get(WebhookSecretsService).openHeaders(row.custom_headers as never)).toHaveProperty(
      'Expect',
    );

    // without --community, every community's endpoints are read
    const everywhere = await cli([]);
    expect(everywhere.code).toBe(1);
    expect(everywhere.out).toContain(bad);
    expect(everywhere.out).toContain(locked);
  });

  it('exits 0 when every stored header can be sent', async () => {
    const { community, token } = await memberWithToken(api.app, { plan: 'PRO', role: 'OWNER' });
    await endpoint(community.id, token, { Authorization: 'Bearer ok', 'X-Route': 'eu 1' });
    await endpoint(community.id, token, {});
    const res = await cli(['--community', community.id]);
    expect([res.code, res.err]).toEqual([0, '']);
    expect(res.out).toContain(
      `Checked 1 endpoint with custom headers of ${community.slug}: every header can be sent.`,
    );
  });

  it('refuses a community that does not exist', async () => {
    const res = await cli(['--community', 'no-such-community-here']);
    expect(res.code).toBe(1);
    expect(res.err).toContain("No community with id or slug 'no-such-community-here'");
  });
});
