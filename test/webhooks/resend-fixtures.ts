import type { SubscribableEvent } from '../../src/modules/events/event-catalog';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { waitFor } from '../utils/worker';
import { raiseEvent } from '../utils/synthetic-event';
import type { useDeliveryStack } from '../utils/delivery-stack';

export const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;
export const HOUR_MS = 3600_000;
/** recover's cap per call in these tests (WEBHOOK_RECOVER_MAX), small enough to reach with a few events */
export const RECOVER_MAX = 3;
/** The API's settings of the resend and recover tests. */
export const RESEND_API_ENV = { WEBHOOK_RECOVER_MAX: String(RECOVER_MAX) };

/** What the resend and the recover tests share, over one delivery stack (test/utils/delivery-stack.ts). */
export function resendFixtures(stack: ReturnType<typeof useDeliveryStack>) {
  /** A PRO community with an OWNER, and an endpoint created through the API on its own receiver path. */
  async function setUp(events: string[] = ['tweet.created']) {
    const member = await memberWithToken(stack.api.app, { plan: 'PRO' });
    const path = `/${unique('hook')}`;
    const created = await call(stack.api.app, 'POST', hooks(member.community.id), {
      token: member.token,
      body: { url: stack.receiver.url + path, events },
    });
    expect(created.status).toBe(201);
    return { ...member, endpointId: created.body.data.id as string, path };
  }

  const raise = (communityId: string, type?: SubscribableEvent) => raiseEvent(stack.api, communityId, type);

  function attemptsOf(endpointId: string, messageId: string) {
    return stack.api.prisma.webhookDelivery.findMany({
      where: { endpointId, messageId },
      orderBy: { attempt: 'asc' },
    });
  }

  /** Waits until the event's attempts are all finished and there are `count` of them. */
  function settled(endpointId: string, messageId: string, count: number) {
    return waitFor(`${count} finished attempts of ${messageId}`, async () => {
      const rows = await attemptsOf(endpointId, messageId);
      return rows.length === count && rows.every((r) => r.status !== 'PENDING') && rows;
    });
  }

  /** Test settings auto-disable after 3 consecutive failures; its pending retries are then cancelled. */
  function autoDisabled(endpointId: string) {
    return waitFor('the endpoint to be auto-disabled', async () => {
      const endpoint = await stack.api.prisma.webhookEndpoint.findUnique({ where: { id: endpointId } });
      return endpoint?.disabledAt;
    });
  }

  /** Another OWNER of the community: a rate-limit bucket of their own. */
  async function anotherOwner(communityId: string) {
    return (await memberWithToken(stack.api.app, { communityId, role: 'OWNER' })).token;
  }

  /** A delivered event: one SUCCESS attempt. */
  async function delivered(s: { community: { id: string }; endpointId: string }) {
    const event = await raise(s.community.id);
    const [row] = await settled(s.endpointId, event.id, 1);
    return { event, deliveryId: row.id };
  }

  const resendUrl = (s: { community: { id: string }; endpointId: string }, deliveryId: string) =>
    `${hooks(s.community.id)}/${s.endpointId}/deliveries/${deliveryId}/resend`;
  const recoverUrl = (s: { community: { id: string }; endpointId: string }) =>
    `${hooks(s.community.id)}/${s.endpointId}/recover`;

  return { setUp, raise, attemptsOf, settled, autoDisabled, anotherOwner, delivered, resendUrl, recoverUrl };
}
