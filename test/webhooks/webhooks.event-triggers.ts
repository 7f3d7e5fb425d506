import { unique } from '../utils/factories';
import { waitFor } from '../utils/worker';
import { makePki } from '../utils/enterprise-peers';
import type { EventTriggers, TriggerContext } from '../delivery/event-triggers';

const REFUSED_TARGET = 'http://127.0.0.1:1';

/**
 * A second endpoint whose target refuses connections, and a tweet it is subscribed to: with the
 * delivery tests' settings (three attempts, auto-disable at three failures) the tweet's attempts
 * fail, the second raises webhook.endpoint.failing, the third exhausts the message and disables it.
 */
async function failingEndpoint({ send, communityId }: TriggerContext) {
  const endpoint = await send('POST', `/api/communities/${communityId}/webhooks`, {
    url: `${REFUSED_TARGET}/${unique('refused')}`,
    events: ['tweet.created'],
  });
  await send('POST', '/api/sdk/tweets', { content: 'to an endpoint that refuses' });
  return endpoint.id;
}

/** How the worker's operational events are raised: through an endpoint that fails, then recovers. */
export const EVENT_TRIGGERS: EventTriggers = {
  'webhook.endpoint.failing': [
    {
      variant: 'half the auto-disable count in a row',
      raise: async (ctx) => [{ endpointId: await failingEndpoint(ctx), consecutiveFailures: 2 }],
    },
  ],
  'webhook.endpoint.disabled': [
    {
      variant: 'auto-disabled',
      raise: async (ctx) => [
        { endpointId: await failingEndpoint(ctx), reason: 'failing', consecutiveFailures: 3 },
      ],
    },
  ],
  'webhook.endpoint.recovered': [
    {
      variant: 're-enabled at a working target, then a success',
      raise: async (ctx) => {
        const { send, communityId } = ctx;
        const id = await failingEndpoint(ctx);
        const hooks = `/api/communities/${communityId}/webhooks`;
        await waitFor('the refusing endpoint to be disabled', async () => {
          const seen = (await send('PATCH', `${hooks}/${id}`, {})) as unknown as {
            disabledAt: string | null;
          };
          return seen.disabledAt !== null;
        });
        // the main endpoint's receiver answers 200 on any path
        const main = (await send('PATCH', `${hooks}/${ctx.endpointId}`, {})) as unknown as { url: string };
        const url = `${new URL(main.url).origin}/${unique('recovered')}`;
        await send('PATCH', `${hooks}/${id}`, { url, isActive: true });
        await send('POST', '/api/sdk/tweets', { content: 'to the endpoint, working again' });
        return [{ endpointId: id, url }];
      },
    },
  ],
  'webhook.message.exhausted': [
    {
      variant: 'the last attempt failed',
      raise: async (ctx) => [
        { endpointId: await failingEndpoint(ctx), eventType: 'tweet.created', attempts: 3 },
      ],
    },
  ],
  'webhook.endpoint.certificate_expiring': [
    {
      variant: 'a client certificate valid for 2 days (within the 14-day warning)',
      raise: async ({ send, communityId }) => {
        const pki = makePki('hooks.example.com');
        const endpoint = await send('POST', `/api/communities/${communityId}/webhooks`, {
          url: `https://127.0.0.1:1/${unique('mtls')}`,
          events: ['tweet.created'],
          tls: { clientCertificate: pki.clientCert, clientKey: pki.clientKey },
        });
        return [{ endpointId: endpoint.id, subject: 'CN=platform-client, O=Test Receiver' }];
      },
    },
  ],
};
