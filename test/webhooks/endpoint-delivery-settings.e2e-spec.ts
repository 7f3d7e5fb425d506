import { DeliverySweep } from '../../src/modules/webhooks/worker/delivery-sweep.service';
import { OUTCOME_UNKNOWN } from '../../src/modules/webhooks/worker/delivery-sweep.store';
import { useDeliveryStack } from '../utils/delivery-stack';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { raiseEvent } from '../utils/synthetic-event';
import { answerAfter, type Responder } from '../utils/webhook-receiver';
import { DELIVERY_TEST_ENV, waitFor } from '../utils/worker';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;
/** How long the slow receiver takes: past WEBHOOK_TIMEOUT of the tests (2s), within 5 s. */
const SLOW_ANSWER_MS = 3_000;
/** The retry jitter (±20%) around a one-second delay, and what a retry takes to go out beyond it. */
const ONE_SECOND_GAP = { min: 800, max: 1_200 + 800 };

type Member = Awaited<ReturnType<typeof memberWithToken>>;

interface LogItem {
  attempt: number;
  status: string;
  error: string | null;
  createdAt: string;
  nextAttemptAt: string | null;
}

/**
 * An endpoint's `retrySchedule` and `timeoutMs` (docs/api.md#webhooks, "Delivery settings"): the
 * fields, their bounds, and what the worker, the test route and the sweep do with them. The suite's
 * WEBHOOK_TIMEOUT is 2s and its WEBHOOK_RETRY_SCHEDULE 50ms,50ms, so an outcome that needs the
 * endpoint's own setting is told apart from the platform's.
 */
describe('webhook endpoint delivery settings', () => {
  const stack = useDeliveryStack();

  async function owner() {
    return memberWithToken(stack.api.app, { plan: 'PRO', role: 'OWNER' });
  }

  async function addEndpoint(member: Member, extra: Record<string, unknown>, respond?: Responder) {
    const path = `/${unique('hook')}`;
    if (respond) stack.receiver.respond(path, respond);
    const created = await call(stack.api.app, 'POST', hooks(member.community.id), {
      token: member.token,
      body: { url: stack.receiver.url + path, events: ['tweet.created'], ...extra },
    });
    expect(created.status).toBe(201);
    return { id: created.body.data.id as string, path, view: created.body.data as Record<string, unknown> };
  }

  const patch = (member: Member, id: string, body: object) =>
    call(stack.api.app, 'PATCH', `${hooks(member.community.id)}/${id}`, { token: member.token, body });

  const raise = async (communityId: string): Promise<string> => (await raiseEvent(stack.api, communityId)).id;

  /** The endpoint's delivery log, oldest attempt first. */
  async function log(member: Member, id: string): Promise<LogItem[]> {
    const res = await call(stack.api.app, 'GET', `${hooks(member.community.id)}/${id}/deliveries`, {
      token: member.token,
    });
    expect(res.status).toBe(200);
    return (res.body.data.items as LogItem[]).slice().reverse();
  }

  /** The log once no attempt of the endpoint waits or runs, and `attempts` were made. */
  function settledLog(member: Member, id: string, attempts: number) {
    return waitFor(
      `${attempts} attempts on ${id}, none PENDING`,
      async () => {
        const items = await log(member, id);
        return items.length === attempts && items.every((i) => i.status !== 'PENDING') && items;
      },
      15_000,
    );
  }

  /** The webhook.message.exhausted events raised for the endpoint (the outbox holds every event). */
  async function exhaustedOf(communityId: string, endpointId: string) {
    const rows = await stack.api.prisma.outboxEvent.findMany({
      where: { communityId, eventType: 'webhook.message.exhausted' },
    });
    return rows
      .map((r) => (r.payload as { data: { endpointId: string; messageId: string; attempts: number } }).data)
      .filter((d) => d.endpointId === endpointId);
  }

  describe('the fields', () => {
    it("are null unless set, and are kept, shown on every read, changed, and reset to the platform's with null", async () => {
      const member = await owner();
      const plain = await addEndpoint(member, {});
      expect(plain.view).toMatchObject({ retrySchedule: null, timeoutMs: null });

      const own = await addEndpoint(member, { retrySchedule: ['30s', '5m', '2h'], timeoutMs: 5000 });
      expect(own.view).toMatchObject({ retrySchedule: ['30s', '5m', '2h'], timeoutMs: 5000 });
      const row = await stack.api.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: own.id } });
      expect([row.retryScheduleMs, row.timeoutMs]).toEqual([[30_000, 300_000, 7_200_000], 5000]);

      const list = await call(stack.api.app, 'GET', hooks(member.community.id), { token: member.token });
      const listed = (list.body.data.items as { id: string }[]).find((e) => e.id === own.id);
      expect(listed).toMatchObject({ retrySchedule: ['30s', '5m', '2h'], timeoutMs: 5000 });

      // a PATCH without them leaves them; with them changes them (each delay shown in its largest whole unit)
      const renamed = await patch(member, own.id, { description: 'slow receiver' });
      expect(renamed.body.data).toMatchObject({ retrySchedule: ['30s', '5m', '2h'], timeoutMs: 5000 });
      const changed = await patch(member, own.id, {
        retrySchedule: ['90 seconds', '1.5h', '1 day'],
        timeoutMs: 30000,
      });
      expect(changed.status).toBe(200);
      expect(changed.body.data).toMatchObject({ retrySchedule: ['90s', '90m', '24h'], timeoutMs: 30000 });

      const reset = await patch(member, own.id, { retrySchedule: null, timeoutMs: null });
      expect(reset.status).toBe(200);
      expect(reset.body.data).toMatchObject({ retrySchedule: null, timeoutMs: null });
      const after = await stack.api.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: own.id } });
      expect([after.retryScheduleMs, after.timeoutMs]).toEqual([[], null]);
    });

    it('accepts each bound', async () => {
      const member = await owner();
      const lowest = await addEndpoint(member, { retrySchedule: ['1s'], timeoutMs: 1000 });
      expect(lowest.view).toMatchObject({ retrySchedule: ['1s'], timeoutMs: 1000 });
      const twenty = Array.from({ length: 20 }, () => '24h');
      const highest = await addEndpoint(member, { retrySchedule: twenty, timeoutMs: 30000 });
      expect(highest.view).toMatchObject({ retrySchedule: twenty, timeoutMs: 30000 });
    });

    it.each([
      ['retrySchedule', [], 'retrySchedule must hold 1 to 20 delays, got 0'],
      [
        'retrySchedule',
        Array.from({ length: 21 }, () => '1m'),
        'retrySchedule must hold 1 to 20 delays, got 21',
      ],
      ['retrySchedule', ['1s', '500ms'], "retrySchedule[1] must be between 1s and 24h, got '500ms'"],
      ['retrySchedule', ['25h'], "retrySchedule[0] must be between 1s and 24h, got '25h'"],
      ['retrySchedule', ['5s', 30], 'retrySchedule[1] must be a delay with a unit'],
      ['retrySchedule', ['30'], 'retrySchedule[0] must be a delay with a unit'],
      ['retrySchedule', '30s', 'retrySchedule must be a list of delays'],
      ['retrySchedule', { first: '30s' }, 'retrySchedule must be a list of delays'],
      [
        'timeoutMs',
        999,
        "timeoutMs must be an integer from 1000 to 30000 (milliseconds), or null for the platform's, got 999",
      ],
      ['timeoutMs', 30001, 'got 30001'],
      ['timeoutMs', '5000', 'got "5000"'],
      ['timeoutMs', 1500.5, 'got 1500.5'],
      ['timeoutMs', true, 'got true'],
    ])('refuses %s %j with 400 naming it, on create and on PATCH', async (field, value, message) => {
      const member = await owner();
      const created = await call(stack.api.app, 'POST', hooks(member.community.id), {
        token: member.token,
        body: { url: `${stack.receiver.url}/${unique('hook')}`, events: ['tweet.created'], [field]: value },
      });
      expect(created.status).toBe(400);
      expect(created.body.code).toBe('VALIDATION_ERROR');
      expect(created.body.details).toEqual([{ field, message: expect.stringContaining(message) as string }]);
      expect(
        await stack.api.prisma.webhookEndpoint.count({ where: { communityId: member.community.id } }),
      ).toBe(0);

      const kept = await addEndpoint(member, { retrySchedule: ['1m'], timeoutMs: 4000 });
      const patched = await patch(member, kept.id, { [field]: value });
      expect(patched.status).toBe(400);
      expect(patched.body.details).toEqual([{ field, message: expect.stringContaining(message) as string }]);
      const row = await stack.api.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: kept.id } });
      expect([row.retryScheduleMs, row.timeoutMs]).toEqual([[60_000], 4000]);
    });
  });

  it("times each send out after the endpoint's timeoutMs, the FIFO queue's and the test route's too", async () => {
    expect(DELIVERY_TEST_ENV.WEBHOOK_TIMEOUT).toBe('2s');
    const member = await owner();
    const slow = answerAfter(SLOW_ANSWER_MS, () => ({ status: 200 }));
    const patient = await addEndpoint(member, { timeoutMs: 5000 }, slow);
    const patientFifo = await addEndpoint(member, { timeoutMs: 5000, ordering: 'fifo' }, slow);
    // its retry waits an hour: the test sees one attempt
    const hasty = await addEndpoint(member, { timeoutMs: 2000, retrySchedule: ['1h'] }, slow);

    const [probe] = await Promise.all([
      call(stack.api.app, 'POST', `${hooks(member.community.id)}/${patient.id}/test`, {
        token: member.token,
      }),
      raise(member.community.id),
    ]);
    expect(probe.status).toBe(200);
    expect(probe.body.data).toMatchObject({ status: 'SUCCESS', responseStatus: 200 });

    // the probe and the event's attempt
    const done = await settledLog(member, patient.id, 2);
    expect(done.map((i) => [i.attempt, i.status])).toEqual([
      [1, 'SUCCESS'],
      [1, 'SUCCESS'],
    ]);
    const [fifoDone] = await settledLog(member, patientFifo.id, 1);
    expect(fifoDone).toMatchObject({ attempt: 1, status: 'SUCCESS' });

    const timedOut = await waitFor('the hasty endpoint to time out', async () => {
      const items = await log(member, hasty.id);
      return items.length === 2 && items[0].status === 'FAILED' && items;
    });
    expect(timedOut[0]).toMatchObject({ attempt: 1, status: 'FAILED', error: 'timeout after 2000 ms' });
    expect(timedOut[1]).toMatchObject({ attempt: 2, status: 'PENDING' });
    const waitMs = Date.parse(timedOut[1].nextAttemptAt!) - Date.parse(timedOut[1].createdAt);
    expect(waitMs).toBeGreaterThanOrEqual(0.8 * 3_600_000 - 1_000);
    expect(waitMs).toBeLessThanOrEqual(1.2 * 3_600_000 + 1_000);
  });

  it('retries on the endpoint schedule, jittered, and exhausts the message after its last attempt', async () => {
    const member = await owner();
    const failing = await addEndpoint(member, { retrySchedule: ['1s', '1s'] }, () => ({ status: 500 }));
    const messageId = await raise(member.community.id);

    const items = await settledLog(member, failing.id, 3);
    expect(items.map((i) => [i.attempt, i.status])).toEqual([
      [1, 'FAILED'],
      [2, 'FAILED'],
      [3, 'FAILED'],
    ]);
    const arrivals = stack.receiver.at(failing.path).map((r) => r.receivedAt);
    expect(arrivals).toHaveLength(3);
    for (const gap of [arrivals[1] - arrivals[0], arrivals[2] - arrivals[1]]) {
      expect(gap).toBeGreaterThanOrEqual(ONE_SECOND_GAP.min);
      expect(gap).toBeLessThanOrEqual(ONE_SECOND_GAP.max);
    }
    const exhausted = await waitFor('the exhausted event', async () => {
      const found = await exhaustedOf(member.community.id, failing.id);
      return found.length > 0 && found;
    });
    expect(exhausted).toEqual([expect.objectContaining({ messageId, attempts: 3 })]);
    expect(
      await stack.api.prisma.webhookDelivery.count({ where: { endpointId: failing.id, status: 'PENDING' } }),
    ).toBe(0);
  });

  it('applies a changed schedule from the next attempt sent; a retry already waiting keeps its time', async () => {
    const member = await owner();
    // the first request changes the schedule before it fails: one retry (["1s"]) becomes two
    let changed = false;
    const failing = await addEndpoint(member, { retrySchedule: ['1s'] }, async () => {
      if (!changed) {
        changed = true;
        const res = await patch(member, failing.id, { retrySchedule: ['1s', '1s'] });
        expect(res.status).toBe(200);
      }
      return { status: 500 };
    });
    const waiting = await addEndpoint(member, { retrySchedule: ['1h'] }, () => ({ status: 500 }));
    const messageId = await raise(member.community.id);

    // attempt 1 was claimed before the change: its retry waits the old first delay; attempt 2 was
    // sent after it, so it has a retry of its own under the new schedule
    const items = await settledLog(member, failing.id, 3);
    expect(items.map((i) => [i.attempt, i.status])).toEqual([
      [1, 'FAILED'],
      [2, 'FAILED'],
      [3, 'FAILED'],
    ]);
    const exhausted = await waitFor('the exhausted event', async () => {
      const found = await exhaustedOf(member.community.id, failing.id);
      return found.length > 0 && found;
    });
    expect(exhausted).toEqual([expect.objectContaining({ messageId, attempts: 3 })]);

    const before = await waitFor('the hour-long retry to be written', async () => {
      const found = await log(member, waiting.id);
      return found.length === 2 && found;
    });
    const res = await patch(member, waiting.id, { retrySchedule: ['1s'] });
    expect(res.body.data.retrySchedule).toEqual(['1s']);
    const after = await log(member, waiting.id);
    expect(after[1]).toMatchObject({ attempt: 2, status: 'PENDING', nextAttemptAt: before[1].nextAttemptAt });
  });

  it("judges a stalled claim by its endpoint's timeout and retries it on its endpoint's schedule", async () => {
    const member = await owner();
    const communityId = member.community.id;
    const quick = await addEndpoint(member, { timeoutMs: 1000, retrySchedule: ['1h'] });
    const patient = await addEndpoint(member, { timeoutMs: 30000 });
    const changedSince = await addEndpoint(member, { timeoutMs: 1000 });
    const lastAttempt = await addEndpoint(member, { retrySchedule: ['1s'] });
    // the endpoints predate the claims below, as they would
    await stack.api.prisma.$executeRaw`
      UPDATE webhook_endpoints SET updated_at = now() - interval '1 hour' WHERE community_id = ${communityId}::uuid`;

    const ago = (ms: number) => new Date(Date.now() - ms);
    const claim = async (endpointId: string, attempt: number, startedMsAgo: number) => {
      const messageId = `msg_${unique('stalled').replace(/[^0-9A-Za-z]/g, '')}`;
      await stack.api.prisma.webhookDelivery.create({
        data: {
          communityId,
          endpointId,
          messageId,
          eventType: 'tweet.created',
          attempt,
          nextAttemptAt: ago(startedMsAgo),
          startedAt: ago(startedMsAgo),
        },
      });
      return messageId;
    };
    // past 1 s + the 10 s margin, within the platform's 2 s + 10 s
    const quickMessage = await claim(quick.id, 1, 11_500);
    // past the platform's 2 s + 10 s, within 30 s + 10 s
    const patientMessage = await claim(patient.id, 1, 20_000);
    // an endpoint changed since its claim began: the claim may have read a longer timeout, so it gets
    // the longest (changed first here, then claimed in the past: no sweep may see the claim before the change)
    expect((await patch(member, changedSince.id, { description: 'changed' })).status).toBe(200);
    const changedMessage = await claim(changedSince.id, 1, 20_000);
    // the platform's schedule (3 attempts) would retry attempt 2; the endpoint's (2 attempts) does not
    const lastMessage = await claim(lastAttempt.id, 2, 13_000);

    const sweep = stack.worker.context.get(DeliverySweep);
    await waitFor('a sweep of this worker', async () => (await sweep.sweep()).ran);

    const rowsOf = (endpointId: string, messageId: string) =>
      stack.api.prisma.webhookDelivery.findMany({
        where: { endpointId, messageId },
        orderBy: { attempt: 'asc' },
      });
    const quickRows = await rowsOf(quick.id, quickMessage);
    expect(quickRows.map((r) => [r.attempt, r.status, r.error])).toEqual([
      [1, 'FAILED', OUTCOME_UNKNOWN],
      [2, 'PENDING', null],
    ]);
    const retryWaitMs = quickRows[1].nextAttemptAt!.getTime() - quickRows[1].createdAt.getTime();
    expect(retryWaitMs).toBeGreaterThanOrEqual(0.8 * 3_600_000 - 1_000);
    expect(retryWaitMs).toBeLessThanOrEqual(1.2 * 3_600_000 + 1_000);

    for (const [endpointId, messageId] of [
      [patient.id, patientMessage],
      [changedSince.id, changedMessage],
    ]) {
      const [still] = await rowsOf(endpointId, messageId);
      expect([still.status, still.startedAt]).toEqual(['PENDING', expect.any(Date)]);
    }

    expect((await rowsOf(lastAttempt.id, lastMessage)).map((r) => [r.attempt, r.status])).toEqual([
      [2, 'FAILED'],
    ]);
    expect(await exhaustedOf(communityId, lastAttempt.id)).toEqual([
      expect.objectContaining({ messageId: lastMessage, attempts: 2 }),
    ]);

    // the claims left standing go with their endpoints rather than to a later sweep
    for (const id of [quick.id, patient.id, changedSince.id, lastAttempt.id])
      expect(
        (await call(stack.api.app, 'DELETE', `${hooks(communityId)}/${id}`, { token: member.token })).status,
      ).toBe(200);
  });
});
