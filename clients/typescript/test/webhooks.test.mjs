import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../dist/esm/index.js';

const secret = () => `whsec_${randomBytes(32).toString('base64')}`;
const NOW = new Date('2026-11-24T12:00:00Z');
const event = {
  id: 'msg_01JABCDEF',
  type: 'tweet.created',
  timestamp: NOW.toISOString(),
  communityId: '4f6d2c1e-0000-4000-8000-000000000001',
  data: { id: 't1', content: 'hello' },
};

/** A delivery as the service sends it: one `v1,` signature per live secret (Standard Webhooks). */
function delivery(secrets, { at = NOW, body = JSON.stringify(event) } = {}) {
  const signature = secrets.map((s) => new Webhook(s).sign(event.id, at, body)).join(' ');
  const headers = {
    'webhook-id': event.id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  };
  return { headers, body };
}

const rejects = (reason) => (err) => err instanceof WebhookVerificationError && err.reason === reason;

describe('verifyWebhook', () => {
  it('returns the event when the signature matches', () => {
    const s = secret();
    const { headers, body } = delivery([s]);
    const verified = verifyWebhook(headers, body, s, { now: NOW });
    assert.deepEqual(verified, event);
    assert.equal(verified.type, 'tweet.created');
  });

  it('accepts when any one live secret matches, whichever order (rotation overlap)', () => {
    const [old, current, unrelated] = [secret(), secret(), secret()];
    const { headers, body } = delivery([old, current]);
    assert.equal(verifyWebhook(headers, body, [unrelated, current], { now: NOW }).id, event.id);
    assert.equal(verifyWebhook(headers, body, [old], { now: NOW }).id, event.id);
    assert.throws(
      () => verifyWebhook(headers, body, [unrelated], { now: NOW }),
      rejects('no-matching-signature'),
    );
  });

  it('rejects a tampered body, an altered id and a missing header', () => {
    const s = secret();
    const { headers, body } = delivery([s]);
    assert.throws(
      () => verifyWebhook(headers, body.replace('hello', 'hullo'), s, { now: NOW }),
      rejects('no-matching-signature'),
    );
    assert.throws(
      () => verifyWebhook({ ...headers, 'webhook-id': 'msg_other' }, body, s, { now: NOW }),
      rejects('no-matching-signature'),
    );
    const { 'webhook-signature': _dropped, ...unsigned } = headers;
    assert.throws(() => verifyWebhook(unsigned, body, s, { now: NOW }), rejects('missing-header'));
  });

  it('rejects a timestamp outside the tolerance, either way, even when correctly signed', () => {
    const s = secret();
    const old = delivery([s], { at: new Date(NOW.getTime() - 301_000) });
    assert.throws(() => verifyWebhook(old.headers, old.body, s, { now: NOW }), rejects('stale-timestamp'));
    const future = delivery([s], { at: new Date(NOW.getTime() + 301_000) });
    assert.throws(
      () => verifyWebhook(future.headers, future.body, s, { now: NOW }),
      rejects('stale-timestamp'),
    );
    const edge = delivery([s], { at: new Date(NOW.getTime() - 300_000) });
    assert.equal(verifyWebhook(edge.headers, edge.body, s, { now: NOW }).id, event.id);
    assert.equal(verifyWebhook(old.headers, old.body, s, { now: NOW, toleranceSeconds: 600 }).id, event.id);
  });

  it('takes a Headers object, mixed-case header names and a byte body', () => {
    const s = secret();
    const { headers, body } = delivery([s]);
    const fetchHeaders = new Headers(headers);
    assert.equal(verifyWebhook(fetchHeaders, new TextEncoder().encode(body), s, { now: NOW }).id, event.id);
    const shouted = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    assert.equal(verifyWebhook(shouted, Buffer.from(body), [s], { now: NOW }).id, event.id);
  });

  it('needs at least one secret', () => {
    const { headers, body } = delivery([secret()]);
    assert.throws(() => verifyWebhook(headers, body, []), TypeError);
  });
});
