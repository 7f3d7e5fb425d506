import { randomUUID } from 'node:crypto';
import { createServer, Server, Socket } from 'node:net';
import { Client } from 'pg';
import { createTestApp, TestApp } from '../utils/app';
import { memberCaller } from '../utils/factories';
import { call, type CallOptions } from '../utils/http';
import { waitFor } from '../utils/worker';
import { createIsolatedDatabase, IsolatedDatabase } from '../utils/isolated-database';
import { ChildWorker, sparePort, spawnCompiled } from './processes';

jest.setTimeout(120_000);

/**
 * docs/idempotency.md: an Idempotency-Key's answer is committed with the write it answers, so an API
 * process killed before the commit leaves neither (a retry runs the write again) and one killed after it
 * leaves both (a retry is answered from storage). The compiled API runs as a child and is SIGKILLed at
 * each of the two moments; the retry goes to another instance, as a client's retry would after a crash.
 */
describe('an API killed in the middle of an idempotent write', () => {
  let db: IsolatedDatabase;
  let other: TestApp;
  let sql: Client;
  let api: ChildWorker | undefined;

  beforeAll(async () => {
    db = await createIsolatedDatabase('idempotency_crash');
    other = await createTestApp({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: db.redisKeyPrefix });
    sql = new Client({ connectionString: db.url });
    await sql.connect();
  });

  afterAll(async () => {
    api?.process.kill('SIGKILL');
    await sql?.end();
    await other?.close();
    await db?.drop();
  });

  async function startApi(): Promise<{ port: number; child: ChildWorker }> {
    const port = await sparePort();
    const child = spawnCompiled('main.js', {
      DATABASE_URL: db.url,
      REDIS_KEY_PREFIX: db.redisKeyPrefix,
      PORT: String(port),
      HOST: '127.0.0.1',
      METRICS_PORT: '0',
    });
    api = child;
    await child.ready;
    return { port, child };
  }

  async function kill(child: ChildWorker) {
    child.process.kill('SIGKILL');
    await child.exited;
  }

  const tweetsWith = async (content: string) =>
    (await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM tweets WHERE content = $1', [content]))
      .rows[0].n;
  const eventsWith = async (content: string) =>
    (
      await sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM outbox_events WHERE payload->'data'->'tweet'->>'content' = $1`,
        [content],
      )
    ).rows[0].n;

  /** The keyed tweet write over a socket to `port`: its status, or 'no answer' when the connection failed. */
  const postOverTheNetwork = (
    port: number,
    auth: CallOptions,
    key: string,
    content: string,
    signal?: AbortSignal,
  ): Promise<number | 'no answer'> =>
    fetch(`http://127.0.0.1:${port}/api/sdk/tweets`, {
      method: 'POST',
      headers: { 'x-api-key': auth.apiKey!, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ content }),
      signal,
    }).then(
      (res) => res.status,
      () => 'no answer' as const,
    );

  /** The keyed tweet write, sent to the other (in-process) instance. */
  const retry = (auth: CallOptions, key: string, content: string) =>
    call(other.app, 'POST', '/api/sdk/tweets', {
      ...auth,
      headers: { 'idempotency-key': key },
      body: { content },
    });

  it('killed before the commit: nothing of the write remains, and the retry runs it once', async () => {
    const owner = await memberCaller(other.app, 'apiKey');
    const key = randomUUID();
    const content = `before the commit ${key}`;
    const { port, child } = await startApi();

    // The tweet's INSERT waits on a lock the test holds, inside the request's transaction.
    const blocker = new Client({ connectionString: db.url });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE tweets IN SHARE ROW EXCLUSIVE MODE');
    const sent = postOverTheNetwork(port, owner.auth, key, content);
    await waitFor('the keyed INSERT to wait on the lock', async () => {
      const { rows } = await sql.query(
        `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO tweets%'`,
      );
      return rows.length > 0;
    });

    // While it runs, the key is in use on every instance.
    const meanwhile = await retry(owner.auth, key, content);
    expect(meanwhile.status).toBe(409);
    expect(meanwhile.body.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(meanwhile.headers['retry-after']).toBe('1');

    await kill(child);
    expect(await sent).toBe('no answer');
    await blocker.query('ROLLBACK');
    await blocker.end();

    // PostgreSQL ends the dead client's transaction (and frees its key) once it notices; a client
    // retries a 409 after Retry-After, as this loop does.
    const answer = await waitFor('the key to be free again', async () => {
      const attempt = await retry(owner.auth, key, content);
      return attempt.status !== 409 && attempt;
    });
    expect(answer.status).toBe(201);
    expect(answer.headers['idempotent-replayed']).toBeUndefined();
    expect(await tweetsWith(content)).toBe(1);
    expect(await eventsWith(content)).toBe(1);
  });

  it('killed after the commit, its answer lost: the retry replays the stored answer and writes nothing', async () => {
    const owner = await memberCaller(other.app, 'apiKey');
    const key = randomUUID();
    const content = `after the commit ${key}`;
    const { port, child } = await startApi();

    // A proxy that passes the request on and never passes the answer back: the client sees no reply.
    const sockets: Socket[] = [];
    const proxy: Server = createServer((incoming) => {
      const upstream = new Socket();
      sockets.push(incoming, upstream);
      upstream.connect(port, '127.0.0.1', () => incoming.pipe(upstream));
      upstream.on('data', () => undefined); // the answer is dropped
      upstream.on('error', () => incoming.destroy());
      incoming.on('error', () => upstream.destroy());
    });
    const proxyPort = await sparePort();
    await new Promise<void>((resolve) => proxy.listen(proxyPort, '127.0.0.1', resolve));
    try {
      const abort = new AbortController();
      const sent = postOverTheNetwork(proxyPort, owner.auth, key, content, abort.signal);
      await waitFor('the write and its answer to commit', async () => (await tweetsWith(content)) === 1);
      const stored = await sql.query('SELECT status_code FROM idempotency_keys');
      expect(stored.rows.map((r: { status_code: number }) => r.status_code)).toContain(201);
      await kill(child);
      abort.abort();
      expect(await sent).toBe('no answer');
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    }

    const answer = await retry(owner.auth, key, content);
    expect(answer.status).toBe(201);
    expect(answer.headers['idempotent-replayed']).toBe('true');
    expect(answer.body.data.content).toBe(content);
    expect(await tweetsWith(content)).toBe(1);
    expect(await eventsWith(content)).toBe(1);
  });
});
