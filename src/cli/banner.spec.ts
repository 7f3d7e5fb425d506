import { formatBanner } from './banner';

describe('the start-up banner', () => {
  it("prints the webhook portal's address beside the API's", () => {
    const lines = formatBanner({
      apiBase: 'http://localhost:3000/api',
      state: null,
      statePath: '/tmp/demo.json',
      insecureTargets: 'off',
    });
    expect(lines.find((line) => line.includes('Portal'))).toMatch(
      /^ {2}Portal http:\/\/localhost:3000\/portal /,
    );
  });
});

describe('the start-up banner of a seeded demo', () => {
  it('gives the one command that prints a portal link for the community with webhooks', () => {
    const lines = formatBanner({
      apiBase: 'http://localhost:3000/api',
      state: {
        database: '127.0.0.1:5432/community_platform',
        password: 'demo-password-123',
        communities: [
          { id: 'f1', slug: 'demo-free', plan: 'FREE' },
          { id: 'p1', slug: 'demo-pro', plan: 'PRO' },
        ],
        logins: [{ email: 'owner@demo.test', role: 'OWNER' }],
        platformAdmin: 'platform-admin@demo.test',
        defaultCommunity: 'demo-free',
        apiKey: { key: 'cp_x', communityId: 'p1', community: 'demo-pro', actsAs: 'owner@demo.test' },
        writtenAt: '2026-01-01T00:00:00.000Z',
      },
      statePath: '/tmp/demo.json',
      insecureTargets: 'off',
    });
    expect(lines).toContain('  npm run cli -- portal:link --community demo-pro');
  });
});
