import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { Client } from 'pg';
import { Webhook } from 'standardwebhooks';
import { runCli } from '../../src/cli/main';
import { WebhookSender } from '../../src/modules/webhooks/core/delivery/webhook-sender.service';
import { encryptionKeyId, SecretCipher } from '../../src/common/crypto/secret-cipher';
import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken } from '../utils/factories';
import { call } from '../utils/http';
import { Receiver, startReceiver } from '../utils/webhook-receiver';

/**
 * Rotating WEBHOOK_SECRET_ENCRYPTION_KEY: a ring, `secrets:reencrypt` in stoppable batches, then the
 * old key leaves the ring. The command touches every stored secret, so this file has a database of
 * its own: the run's shared one holds other files' secrets under the development key. The SIGINT
 * test runs dist/cli/main.js: `npm run build` first.
 */
const OLD_KEY = randomBytes(32).toString('base64');
const NEW_KEY = randomBytes(32).toString('base64');
const OLD_ID = encryptionKeyId(Buffer.from(OLD_KEY, 'base64'));
const NEW_ID = encryptionKeyId(Buffer.from(NEW_KEY, 'base64'));
const ENDPOINTS = 7;

const adminUrl = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const database = `${process.env.TEST_DATABASE_NAME ?? 'cp_test'}_keyring`;

async function admin(sql: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Runs the CLI in-process with this key ring; `stop` lets a test press Ctrl-C. */
async function cli(ring: string, argv: string[], onLine?: (line: string, stop: () => void) => void) {
  process.env.WEBHOOK_SECRET_ENCRYPTION_KEY = ring;
  const controller = new AbortController();
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    out: (line) => {
      out.push(line);
      onLine?.(line, () => controller.abort());
    },
    err: (line) => err.push(line),
    stop: controller.signal,
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

function remaining(output: string): number {
  const match = /(\d+) secrets? remains? under older keys/.exec(output);
  if (!match) throw new Error(`no remaining count in:\n${output}`);
  return Number(match[1]);
}

describe('encryption-key ring and secrets:reencrypt (docs/operations.md#rotate-the-encryption-key)', () => {
  const saved = {
    DATABASE_URL: process.env.DATABASE_URL,
    WEBHOOK_SECRET_ENCRYPTION_KEY: process.env.WEBHOOK_SECRET_ENCRYPTION_KEY,
  };
  let receiver: Receiver;
  let community: string;
  let token: string;
  let userId: string;
  const endpoints: { id: string; secret: string }[] = [];

  beforeAll(async () => {
    await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await admin(`CREATE DATABASE "${database}"`);
    const url = new URL(adminUrl);
    url.pathname = `/${database}`;
    process.env.DATABASE_URL = url.toString();
    const root = resolve(__dirname, '..', '..');
    execFileSync(
      process.execPath,
      [resolve(root, 'node_modules/prisma/build/index.js'), 'migrate', 'deploy'],
      {
        cwd: root,
        env: process.env,
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    receiver = await startReceiver((_req, res) => res.writeHead(200).end('ok'));

    // Before the rotation: one key, as today. Every endpoint's secret is sealed under it.
    const before = await app(OLD_KEY);
    try {
      const member = await memberWithToken(before.app, { plan: 'PRO', role: 'OWNER' });
      community = member.community.id;
      token = member.token;
      userId = member.user.id;
      for (let i = 0; i < ENDPOINTS; i++) {
        const res = await call(before.app, 'POST', `/api/communities/${community}/webhooks`, {
          token,
          body: { url: `${receiver.url}/${i}`, events: ['tweet.created'] },
        });
        expect(res.status).toBe(201);
        endpoints.push({ id: res.body.data.id, secret: res.body.data.secret });
      }
      expect(await before.prisma.webhookSecret.count({ where: { keyId: OLD_ID } })).toBe(ENDPOINTS);
    } finally {
      await before.close();
    }
  });

  afterAll(async () => {
    await receiver?.close();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  });

  function app(ring: string): Promise<TestApp> {
    return createTestApp({ WEBHOOK_SECRET_ENCRYPTION_KEY: ring, WEBHOOK_ALLOW_INSECURE_TARGETS: 'true' });
  }

  /**
   * Signs and sends a delivery the way the worker does (WebhookSender reads the live secrets and
   * decrypts them with the app's ring); the receiver verifies it with each of `secrets`.
   */
  async function expectSigned(t: TestApp, endpointId: string, secrets: string[]) {
    const messageId = `msg_${randomBytes(8).toString('hex')}`;
    const body = JSON.stringify({ id: messageId, type: 'webhook.test', data: {} });
    const sent = await t.app.get(WebhookSender).send({
      communityId: community,
      endpointId,
      url: `${receiver.url}/${endpointId}`,
      messageId,
      eventType: 'webhook.test',
      body,
    });
    expect(sent).toMatchObject({ ok: true, error: null });
    const request = receiver.received.find((r) => r.headers['webhook-id'] === messageId)!;
    for (const secret of secrets)
      expect(() => new Webhook(secret).verify(request.body, request.headers)).not.toThrow();
  }

  /** The API's test route signs as well (one call: the route is rate-limited). */
  async function expectTestRouteSigned(t: TestApp, endpointId: string, secret: string) {
    const res = await call(t.app, 'POST', `/api/communities/${community}/webhooks/${endpointId}/test`, {
      token,
    });
    expect(res.status).toBe(200);
    const request = receiver.received.find((r) => r.headers['webhook-id'] === res.body.data.messageId)!;
    expect(() => new Webhook(secret).verify(request.body, request.headers)).not.toThrow();
  }

  it('runs in order: old secrets sign under the new ring, an interrupted run resumes, the old key leaves', async () => {
    const ring = `${NEW_KEY},${OLD_KEY}`;

    // 1. The new key is added first in the ring: secrets sealed under the old key still sign,
    //    and a rotation seals the new secret under the new key.
    const during = await app(ring);
    try {
      for (const endpoint of endpoints) await expectSigned(during, endpoint.id, [endpoint.secret]);
      const rotated = await call(
        during.app,
        'POST',
        `/api/communities/${community}/webhooks/${endpoints[0].id}/rotate-secret`,
        { token },
      );
      expect(rotated.status).toBe(200);
      const newest = rotated.body.data.secret as string;
      await expectSigned(during, endpoints[0].id, [newest, endpoints[0].secret]);
      endpoints[0].secret = newest;
      expect(await during.prisma.webhookSecret.count({ where: { keyId: NEW_ID } })).toBe(1);
    } finally {
      await during.close();
    }

    // 2. --dry-run counts the secrets under each key and changes nothing.
    const dry = await cli(ring, ['secrets:reencrypt', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.out).toContain(`${NEW_ID} (newest, encrypts): 1 secret`);
    expect(dry.out).toContain(`${OLD_ID} (older, decrypts): ${ENDPOINTS} secrets`);
    expect(dry.out).toContain(`${ENDPOINTS} secrets not under the newest key`);
    expect(dry.out).not.toContain(NEW_KEY);
    expect(dry.out).not.toContain(OLD_KEY);

    // 3. An interrupted run: one batch of 2, then --max-batches stops it with the rest remaining.
    const first = await cli(ring, ['secrets:reencrypt', '--batch-size', '2', '--max-batches', '1']);
    expect(first.code).toBe(0);
    expect(first.out).toContain('Batch 1: re-encrypted 2 (2 so far)');
    expect(first.out).toContain('Stopped (--max-batches 1) after 1 batch');
    expect(remaining(first.out)).toBe(ENDPOINTS - 2);
    expect(first.out).toContain('run the command again to continue');

    // 4. Ctrl-C: the batch in hand finishes, the run stops and says how many remain.
    const second = await cli(ring, ['secrets:reencrypt', '--batch-size', '2'], (line, stop) => {
      if (line.startsWith('Batch 1:')) stop();
    });
    expect(second.code).toBe(0);
    expect(second.out).toContain('Stopped (interrupted) after 1 batch');
    expect(second.out).not.toContain('Batch 2:');
    expect(remaining(second.out)).toBe(ENDPOINTS - 4);

    // 5. Run again: it finishes the rest and reports 0.
    const third = await cli(ring, ['secrets:reencrypt', '--batch-size', '2']);
    expect(third.code).toBe(0);
    expect(third.out).toContain('Batch 2: re-encrypted 1 (3 so far)');
    expect(third.out).toContain('Finished: re-encrypted 3 in 2 batches');
    expect(remaining(third.out)).toBe(0);
    expect(third.out).toContain(`${OLD_ID} (older, decrypts): 0 secrets`);

    // 6. The old key leaves the ring: every endpoint still signs with the secret it had, and rotates.
    const after = await app(NEW_KEY);
    try {
      expect(await after.prisma.webhookSecret.count({ where: { keyId: { not: NEW_ID } } })).toBe(0);
      for (const endpoint of endpoints) await expectSigned(after, endpoint.id, [endpoint.secret]);
      const rotated = await call(
        after.app,
        'POST',
        `/api/communities/${community}/webhooks/${endpoints[1].id}/rotate-secret`,
        { token },
      );
      expect(rotated.status).toBe(200);
      await expectSigned(after, endpoints[1].id, [rotated.body.data.secret, endpoints[1].secret]);
      await expectTestRouteSigned(after, endpoints[3].id, endpoints[3].secret);
    } finally {
      await after.close();
    }
    const done = await cli(NEW_KEY, ['secrets:reencrypt']);
    expect(done.out).toContain('Finished: re-encrypted 0 in 0 batches');
    expect(remaining(done.out)).toBe(0);
  });

  /** Seals the current secret of `endpoint` under the old key again, as a process on the old ring would. */
  async function sealUnderOldKey(t: TestApp, endpoint: { id: string; secret: string }) {
    const row = await t.prisma.webhookSecret.findFirstOrThrow({
      where: { endpointId: endpoint.id },
      orderBy: { createdAt: 'desc' },
    });
    const sealed = new SecretCipher(Buffer.from(OLD_KEY, 'base64')).encrypt(endpoint.secret);
    await t.prisma.webhookSecret.update({ where: { id: row.id }, data: sealed });
    return row.id;
  }

  it('names secrets under a key not in the ring, skips rows a transaction holds, then moves them', async () => {
    const t = await app(NEW_KEY);
    const holder = new Client({ connectionString: process.env.DATABASE_URL });
    await holder.connect();
    try {
      // secrets written by a process that still had only the old key (it was not restarted first)
      const held = await sealUnderOldKey(t, endpoints[2]);
      await sealUnderOldKey(t, endpoints[3]);

      const stuck = await cli(NEW_KEY, ['secrets:reencrypt']);
      expect(stuck.code).toBe(0);
      expect(stuck.out).toContain(`${OLD_ID} (NOT in the ring: cannot be decrypted): 2 secrets`);
      expect(remaining(stuck.out)).toBe(2);
      expect(stuck.out).toContain('add that key back');

      // A rotation holds one of them: the run neither waits for it nor fails, and leaves it.
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM webhook_secrets WHERE id = $1 FOR UPDATE', [held]);
      const ring = `${NEW_KEY},${OLD_KEY}`;
      const busy = await cli(ring, ['secrets:reencrypt']);
      expect(busy.out).toContain('Finished: re-encrypted 1 in 1 batch');
      expect(remaining(busy.out)).toBe(1);
      expect(busy.out).toContain('run the command again');
      await holder.query('COMMIT');

      const moved = await cli(ring, ['secrets:reencrypt']);
      expect(moved.out).toContain('Finished: re-encrypted 1 in 1 batch');
      expect(remaining(moved.out)).toBe(0);
      await expectTestRouteSigned(t, endpoints[2].id, endpoints[2].secret);
    } finally {
      await holder.end();
      await t.close();
    }
  });

  it('leaves a row that will not decrypt (tampered) as it is, names it, and moves the others', async () => {
    const t = await app(NEW_KEY);
    try {
      const tampered = await sealUnderOldKey(t, endpoints[4]);
      await sealUnderOldKey(t, endpoints[5]);
      const row = await t.prisma.webhookSecret.findUniqueOrThrow({ where: { id: tampered } });
      const ciphertext = Uint8Array.from(row.ciphertext);
      ciphertext[0] ^= 1;
      await t.prisma.webhookSecret.update({ where: { id: tampered }, data: { ciphertext } });

      const res = await cli(`${NEW_KEY},${OLD_KEY}`, ['secrets:reencrypt', '--batch-size', '1']);
      expect(res.code).toBe(0);
      expect(res.out).toMatch(/Finished: re-encrypted 1 in 2 batches/);
      expect(res.out).toContain(`secret ${tampered} was left as it is`);
      expect(remaining(res.out)).toBe(1);
      expect((await t.prisma.webhookSecret.findUniqueOrThrow({ where: { id: tampered } })).keyId).toBe(
        OLD_ID,
      );
      await expectSigned(t, endpoints[5].id, [endpoints[5].secret]);
    } finally {
      await t.close();
    }
  });

  it('npm run cli: the first Ctrl-C (SIGINT) finishes the batch in hand and reports what remains', async () => {
    const t = await app(NEW_KEY);
    const holder = new Client({ connectionString: process.env.DATABASE_URL });
    await holder.connect();
    try {
      await sealUnderOldKey(t, endpoints[0]);
      await sealUnderOldKey(t, endpoints[1]);
      const before = await t.prisma.webhookSecret.count({ where: { keyId: OLD_ID } });
      expect(before).toBeGreaterThanOrEqual(2);
      // Batches wait behind this lock, so the signal surely arrives while the command is working.
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE webhook_secrets IN EXCLUSIVE MODE');
      const child = spawn(
        process.execPath,
        [resolve(__dirname, '../../dist/cli/main.js'), 'secrets:reencrypt', '--batch-size', '1'],
        {
          env: { ...process.env, WEBHOOK_SECRET_ENCRYPTION_KEY: `${NEW_KEY},${OLD_KEY}` },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      let err = '';
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
      await new Promise<void>((counted) =>
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes(`${OLD_ID} (older, decrypts)`)) counted();
        }),
      );
      child.kill('SIGINT');
      // the message proves the handler ran; then the lock goes and the batch in hand completes
      await new Promise<void>((told) =>
        child.stderr.on('data', () => err.includes('Stopping after the current batch') && told()),
      );
      await holder.query('COMMIT');
      expect(await exited).toBe(0);
      expect(out).toContain('Stopped (interrupted)');
      expect(remaining(out)).toBeGreaterThanOrEqual(before - 1);
      expect(remaining(out)).toBe(await t.prisma.webhookSecret.count({ where: { keyId: { not: NEW_ID } } }));
    } finally {
      await holder.end();
      await t.close();
    }
  });

  it('refuses bad options and a bad key ring with exit code 1, never printing a key', async () => {
    for (const [argv, message] of [
      [['--batch-size', '0'], /--batch-size must be a whole number of at least 1/],
      [['--max-batches', 'x'], /--max-batches must be a whole number of at least 1/],
      [['--batch-size', '20000'], /--batch-size must be at most 10000/],
    ] as const) {
      const res = await cli(NEW_KEY, ['secrets:reencrypt', ...argv]);
      expect(res.code).toBe(1);
      expect(res.err).toMatch(message);
    }
    const ring = await cli(`${NEW_KEY},${NEW_KEY}`, ['secrets:reencrypt']);
    expect(ring.code).toBe(1);
    expect(ring.err).toMatch(/WEBHOOK_SECRET_ENCRYPTION_KEY.*entry 2 of 2 repeats entry 1/);
    expect(ring.err).not.toContain(NEW_KEY);
  });

  it("re-encrypts endpoints' custom headers with the secrets; they are sent under the new ring", async () => {
    const before = await app(OLD_KEY);
    let endpointId: string;
    try {
      const res = await call(before.app, 'POST', `/api/communities/${community}/webhooks`, {
        token,
        body: {
          url: `${receiver.url}/headers`,
          events: ['tweet.created'],
          headers: { 'X-Receiver-Token': 'tok_sealed_1234' },
        },
      });
      expect(res.status).toBe(201);
      endpointId = res.body.data.id;
    } finally {
      await before.close();
    }
    const keyOf = async (t: TestApp) =>
      (
        await t.prisma.$queryRaw<{ key_id: string }[]>`
          SELECT custom_headers->>'keyId' AS key_id FROM webhook_endpoints WHERE id = ${endpointId}::uuid`
      )[0].key_id;
    const t = await app(NEW_KEY);
    try {
      expect(await keyOf(t)).toBe(OLD_ID);
      const res = await cli(`${NEW_KEY},${OLD_KEY}`, ['secrets:reencrypt']);
      expect(res.code).toBe(0);
      // what remains is the tampered secret left by the test before: the header set moved
      expect(remaining(res.out)).toBe(
        await t.prisma.webhookSecret.count({ where: { keyId: { not: NEW_ID } } }),
      );
      expect(await keyOf(t)).toBe(NEW_ID);
      const sent = await call(t.app, 'POST', `/api/communities/${community}/webhooks/${endpointId}/test`, {
        token,
      });
      expect(sent.status).toBe(200);
      const request = receiver.received.find((r) => r.headers['webhook-id'] === sent.body.data.messageId)!;
      expect(request.headers['x-receiver-token']).toBe('tok_sealed_1234');
    } finally {
      await t.close();
    }
  });

  it('seals the answers kept under Idempotency-Keys too, those kept in clear before included; replays stay byte for byte', async () => {
    const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
    const send = (t: TestApp, url: string, key: string, body: string) =>
      t.app.inject({
        method: 'POST',
        url,
        payload: body,
        headers: {
          authorization: `Bearer ${token}`,
          'idempotency-key': key,
          'content-type': 'application/json',
        },
      });
    // an endpoint created with a key under the old ring: its answer holds the signing secret
    const created = {
      url: `/api/communities/${community}/webhooks`,
      key: randomUUID(),
      body: JSON.stringify({ url: `${receiver.url}/keyed`, events: ['tweet.created'] }),
    };
    // a tweet's answer, then put back in clear as the table held answers before they were sealed
    const legacy = {
      url: '/api/sdk/tweets',
      key: randomUUID(),
      body: JSON.stringify({ content: 'kept before the upgrade' }),
    };
    const before = await app(OLD_KEY);
    let createdAnswer: string;
    let legacyAnswer: string;
    try {
      const res = await send(before, created.url, created.key, created.body);
      expect(res.statusCode).toBe(201);
      createdAnswer = res.body;
      const tweet = await send(before, legacy.url, legacy.key, legacy.body);
      expect(tweet.statusCode).toBe(201);
      legacyAnswer = tweet.body;
      const inClear = await before.prisma.pool.query(
        `UPDATE idempotency_keys
            SET response_body = $2, key_id = NULL, iv = NULL, ciphertext = NULL, auth_tag = NULL, caller = NULL,
                caller_seq = NULL
          WHERE id = $1`,
        [sha256(`user:${userId}\n${community}\n${legacy.key}`), legacyAnswer],
      );
      expect(inClear.rowCount).toBe(1);
    } finally {
      await before.close();
    }

    // the count it starts with, then a batch for each answer
    const run = await cli(`${NEW_KEY},${OLD_KEY}`, ['secrets:reencrypt', '--batch-size', '1']);
    expect(run.code).toBe(0);
    const [census, end] = run.out.split('Finished');
    expect(census).toContain(`${OLD_ID} (older, decrypts): 1 answer`);
    expect(census).toContain('in clear (kept before answers were sealed): 1 answer');
    expect(end).toContain(`${NEW_ID} (newest, encrypts): 2 answers`);
    expect(end).not.toContain('in clear (kept before');
    expect(run.out).toContain('0 Idempotency-Key answers in clear or under older keys');

    // the old key leaves: both answers open under the new one alone, as they were sent
    const after = await app(NEW_KEY);
    try {
      const { rows } = await after.prisma.pool.query<{ key_id: string; response_body: string | null }>(
        'SELECT key_id, response_body FROM idempotency_keys',
      );
      expect(rows).toEqual([
        { key_id: NEW_ID, response_body: null },
        { key_id: NEW_ID, response_body: null },
      ]);
      for (const [request, answer] of [
        [created, createdAnswer],
        [legacy, legacyAnswer],
      ] as const) {
        const again = await send(after, request.url, request.key, request.body);
        expect(again.headers['idempotent-replayed']).toBe('true');
        expect(again.statusCode).toBe(201);
        expect(again.body).toBe(answer);
      }
    } finally {
      await after.close();
    }
  });
});
