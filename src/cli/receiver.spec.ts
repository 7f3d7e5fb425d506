import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { writeDemoState, type DemoState } from './demo-state';
import { formatDelivery, parseReceiverArgs, verify } from './receiver';

const SECRET = `whsec_${Buffer.alloc(24, 1).toString('base64')}`;
const OTHER = `whsec_${Buffer.alloc(24, 2).toString('base64')}`;

describe('npm run receiver', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cp-receiver-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('takes secrets from --secret, else WEBHOOK_SECRETS, else the demo state file', () => {
    const path = join(dir, 'demo.json');
    writeDemoState(path, { endpoint: { secrets: [SECRET, OTHER] } } as DemoState);
    expect(parseReceiverArgs(['--secret', OTHER], { DEMO_STATE_FILE: path })).toMatchObject({
      options: { secrets: [OTHER], port: 4000, status: 200 },
    });
    expect(
      parseReceiverArgs([], { WEBHOOK_SECRETS: `${OTHER}, ${SECRET}`, DEMO_STATE_FILE: path }),
    ).toMatchObject({
      options: { secrets: [OTHER, SECRET] },
    });
    expect(parseReceiverArgs(['--status', '500', '--port', '0'], { DEMO_STATE_FILE: path })).toMatchObject({
      options: { secrets: [SECRET, OTHER], status: 500, port: 0 },
      source: path,
    });
  });

  it.each([
    [['--status', '700'], /--status/],
    [['--port', 'x'], /--port/],
    [['--bogus'], /Unknown option/],
    [[], /No signing secret/],
  ])('refuses %j', (argv, message) => {
    const parsed = parseReceiverArgs(argv, { DEMO_STATE_FILE: join(dir, 'missing.json') });
    expect('error' in parsed && parsed.error).toMatch(message);
  });

  it('--help asks for the usage', () => {
    expect(parseReceiverArgs(['--help'], {})).toEqual({ help: true });
  });

  it('verifies with any of the secrets and prints type, id, time and data', () => {
    const body = JSON.stringify({
      id: 'msg_1',
      type: 'tweet.created',
      timestamp: '2026-01-01T00:00:00.000Z',
      communityId: 'c1',
      data: { tweet: { content: 'hi' } },
    });
    const now = new Date();
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': `${Math.floor(now.getTime() / 1000)}`,
      'webhook-signature': new Webhook(OTHER).sign('msg_1', now, body),
    };
    const verdict = verify([SECRET, OTHER], body, headers);
    expect(verdict).toEqual({ ok: true, secret: 1 });
    expect(verify([SECRET], body, headers).ok).toBe(false);
    const text = formatDelivery(body, headers, verdict, 200, now).join('\n');
    expect(text).toContain('tweet.created  msg_1  verified (secret 2)');
    expect(text).toContain('time       2026-01-01T00:00:00.000Z');
    expect(text).toContain('"content": "hi"');
    expect(text).toContain('answered   200');
  });
});
