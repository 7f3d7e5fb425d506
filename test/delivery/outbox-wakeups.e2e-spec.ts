import { newMessageId } from '../../src/modules/events/event-body';
import { loadConfig } from '../../src/config/app-config';
import { OUTBOX_CHANNEL, OutboxWakeups } from '../../src/modules/webhooks/worker/outbox-wakeups';
import { PrismaService } from '../../src/prisma/prisma.service';
import { unique } from '../utils/factories';
import { waitFor } from '../utils/worker';

/**
 * The relay wakes on PostgreSQL's notification of committed outbox events (LISTEN/NOTIFY) instead of
 * waiting for its next poll, and its LISTEN connection comes back by itself when it is cut.
 */
describe('outbox wake-ups', () => {
  const config = loadConfig(process.env).config;
  let prisma: PrismaService;
  let communityId: string;

  beforeAll(async () => {
    prisma = new PrismaService(config);
    const slug = unique('wakeups');
    communityId = (await prisma.community.create({ data: { slug, name: slug } })).id;
  });

  afterAll(async () => {
    await prisma.community.delete({ where: { id: communityId } });
    await prisma.onModuleDestroy();
  });

  /** Commits one event to the outbox, already relayed so that no running relay picks it up. */
  const commitEvent = () =>
    prisma.outboxEvent.create({
      data: {
        communityId,
        messageId: newMessageId(),
        eventType: 'tweet.created',
        payload: {},
        relayedAt: new Date(),
      },
    });

  const isListening = async (pid: number | undefined) =>
    pid !== undefined &&
    (
      await prisma.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE pid = ${pid} AND query = ${`LISTEN ${OUTBOX_CHANNEL}`}`
    )[0].n === 1;

  it('calls back after a commit of outbox events, and again after its connection was cut', async () => {
    const wakeups = new OutboxWakeups(config);
    let calls = 0;
    await wakeups.listen(() => calls++);
    try {
      expect(calls).toBe(1); // the wake-up on connecting covers events committed before it
      const first = wakeups.listeningPid();
      expect(await isListening(first)).toBe(true);

      await commitEvent();
      await waitFor('the notification of the commit', () => calls >= 2);

      // the database drops the listening connection: it comes back and says so with a wake-up
      const afterCut = calls;
      await prisma.$executeRaw`SELECT pg_terminate_backend(${first}::int)`;
      await waitFor('the reconnection wake-up', () => calls > afterCut, 10_000);
      expect(wakeups.listeningPid()).not.toBe(first);
      expect(await isListening(wakeups.listeningPid())).toBe(true);
      const reconnected = calls;
      await commitEvent();
      await waitFor('a notification on the new connection', () => calls > reconnected);
    } finally {
      await wakeups.stop();
    }
    const stoppedAt = calls;
    await commitEvent();
    // nothing listens any more: another listener proves the notification went out meanwhile
    const other = new OutboxWakeups(config);
    let otherCalls = 0;
    await other.listen(() => otherCalls++);
    await commitEvent();
    await waitFor('the other listener', () => otherCalls >= 2);
    await other.stop();
    expect(calls).toBe(stoppedAt);
  });
  it('behind PgBouncer listens on DATABASE_DIRECT_URL, and without one opens nothing (the relay polls)', async () => {
    // DATABASE_URL says PgBouncer (`pgbouncer=true`): a LISTEN there would land on a shared server connection
    const pooled = new URL(config.DATABASE_URL);
    pooled.searchParams.set('pgbouncer', 'true');
    const withoutDirect = new OutboxWakeups(
      loadConfig({ ...process.env, DATABASE_URL: pooled.toString() }).config,
    );
    let polled = 0;
    await withoutDirect.listen(() => polled++);
    expect(withoutDirect.listeningPid()).toBeUndefined();
    expect(polled).toBe(0);
    await withoutDirect.stop();

    const withDirect = new OutboxWakeups(
      loadConfig({
        ...process.env,
        DATABASE_URL: pooled.toString(),
        DATABASE_DIRECT_URL: config.DATABASE_URL,
      }).config,
    );
    let calls = 0;
    await withDirect.listen(() => calls++);
    try {
      expect(await isListening(withDirect.listeningPid())).toBe(true);
      await commitEvent();
      await waitFor('the notification through the direct connection', () => calls >= 2);
    } finally {
      await withDirect.stop();
    }
  });
});
