import { TestApp, useTestApp } from '../utils/app';
import { memberWithToken } from '../utils/factories';
import { call } from '../utils/http';

const PRODUCTION = {
  NODE_ENV: 'production',
  JWT_SECRET: 'production-secret-of-at-least-thirty-two-characters',
  WEBHOOK_SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
};

/** A refused webhook URL names the setting that would lift the rule, outside production only. */
describe('webhook URL refusals name WEBHOOK_ALLOW_INSECURE_TARGETS outside production', () => {
  const create = async (t: TestApp, url: string) => {
    const { community, token } = await memberWithToken(t.app, { plan: 'PRO' });
    return call(t.app, 'POST', `/api/communities/${community.id}/webhooks`, {
      token,
      body: { url, events: ['tweet.created'] },
    });
  };

  describe('in development', () => {
    const t = useTestApp();

    it.each(['http://127.0.0.1:9999/hooks', 'https://localhost/hooks', 'https://93.184.215.14:8443/hooks'])(
      'refuses %s and names the setting',
      async (url) => {
        const res = await create(t, url);
        expect(res.status).toBe(400);
        expect(res.body.error).toMatch(/WEBHOOK_ALLOW_INSECURE_TARGETS=true/);
      },
    );

    it.each(['not a url', 'https://user:pw@93.184.215.14/hooks'])(
      'does not name it for %s, which the setting would not lift',
      async (url) => {
        const res = await create(t, url);
        expect(res.status).toBe(400);
        expect(res.body.error).not.toMatch(/WEBHOOK_ALLOW_INSECURE_TARGETS/);
      },
    );
  });

  describe('in production', () => {
    const t = useTestApp(PRODUCTION);

    it('never names it', async () => {
      const res = await create(t, 'http://127.0.0.1:9999/hooks');
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('url must use https');
    });
  });
});
