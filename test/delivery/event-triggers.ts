import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  EVENT_TYPES,
  SUBSCRIBABLE_EVENTS,
  type EventType,
  type SubscribableEvent,
} from '../../src/modules/events/event-catalog';
import { unique } from '../utils/factories';
import { call } from '../utils/http';
import { waitFor } from '../utils/worker';

/** What a trigger may do: call routes as the community's owner, who holds an ENTERPRISE plan. */
export interface TriggerContext {
  /** Calls a route; fails the test unless it answers 200 or 201. Returns the answer's `data`. */
  send: (method: 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, body?: object) => Promise<{ id: string }>;
  communityId: string;
  /** the webhook endpoint the deliveries go to */
  endpointId: string;
}

/** A part of an event's `data`: a delivered body matches if its `data` holds at least these values. */
export type ExpectedData = Record<string, unknown>;

export interface EventTrigger {
  /** which variant of the event this raises, named in failures */
  variant: string;
  /**
   * Raises the event through its public route(s) (other events may be raised on the way) and
   * returns, for each event of this type it raised, the part of `data` that tells that one apart.
   */
  raise: (ctx: TriggerContext) => Promise<ExpectedData[]>;
}

/** Triggers of some catalog events: how each is raised, the plain case first, then the other shapes of its `data`. */
export type EventTriggers = { [K in EventType]?: readonly [EventTrigger, ...EventTrigger[]] };

/**
 * Where each event's subject is in a delivered body, read by hand (docs/product-decisions.md#event-subjects),
 * not through the definitions' paths: a definition that pointed its subject elsewhere fails events.e2e-spec.ts.
 */
export type ExpectedSubjects = { [K in SubscribableEvent]?: (body: Delivered) => string };

/**
 * How the events of the modules without a triggers file of their own are raised through the API. A
 * module's events are best raised beside its tests: `test/<feature>/<feature>.event-triggers.ts`
 * exporting `EVENT_TRIGGERS: EventTriggers` (and `EXPECTED_SUBJECTS: ExpectedSubjects` for its
 * subscribable events) is found and merged in (triggersOfEveryEvent, subjectsOfEveryEvent).
 */
const CENTRAL_TRIGGERS: EventTriggers = {
  'community.updated': [
    {
      variant: 'a setting',
      raise: async ({ send, communityId }) => {
        await send('PATCH', '/api/sdk/community/settings', { description: 'now with webhooks' });
        return [
          { community: { id: communityId, description: 'now with webhooks' }, changed: ['description'] },
        ];
      },
    },
    {
      variant: 'a custom domain, pending its DNS check',
      raise: async ({ send }) => {
        const domain = `${unique('d')}.example.test`;
        await send('PATCH', '/api/sdk/community/settings', { customDomain: domain });
        return [{ community: { customDomainPending: { domain } }, changed: ['customDomainPending'] }];
      },
    },
    {
      variant: 'the branding',
      raise: async ({ send }) => {
        await send('PATCH', '/api/sdk/community/branding', { primaryColor: '#112233' });
        return [{ community: { branding: { primaryColor: '#112233' } }, changed: ['primaryColor'] }];
      },
    },
  ],
  'tweet.created': [
    {
      variant: 'a tweet',
      raise: async ({ send }) => {
        const tweet = await send('POST', '/api/sdk/tweets', { content: 'first' });
        return [{ tweet: { id: tweet.id, content: 'first' } }];
      },
    },
  ],
  'tweet.updated': [
    {
      variant: 'an edit',
      raise: async ({ send }) => {
        const tweet = await send('POST', '/api/sdk/tweets', { content: 'first' });
        await send('PATCH', `/api/sdk/tweets/${tweet.id}`, { content: 'first, edited' });
        return [{ tweet: { id: tweet.id, content: 'first, edited' } }];
      },
    },
  ],
  'tweet.deleted': [
    {
      variant: 'a deletion',
      raise: async ({ send }) => {
        const tweet = await send('POST', '/api/sdk/tweets', { content: 'soon gone' });
        await send('DELETE', `/api/sdk/tweets/${tweet.id}`);
        return [{ tweet: { id: tweet.id, content: 'soon gone' } }];
      },
    },
  ],
  'comment.created': [
    {
      variant: 'on a tweet',
      raise: async ({ send }) => {
        const tweet = await send('POST', '/api/sdk/tweets', { content: 'commented' });
        const comment = await send('POST', `/api/sdk/tweets/${tweet.id}/comments`, { content: 'on a tweet' });
        return [{ comment: { id: comment.id, parentType: 'tweets', parentId: tweet.id } }];
      },
    },
    {
      variant: 'on a task',
      raise: async ({ send }) => {
        const task = await send('POST', '/api/sdk/tasks', {
          title: 'a task',
          dueAt: '2030-01-01T00:00:00.000Z',
        });
        const comment = await send('POST', `/api/sdk/tasks/${task.id}/comments`, { content: 'on a task' });
        return [{ comment: { id: comment.id, parentType: 'tasks', parentId: task.id } }];
      },
    },
  ],
  'like.created': [
    {
      variant: 'of a tweet',
      raise: async ({ send }) => {
        const tweet = await send('POST', '/api/sdk/tweets', { content: 'liked' });
        const like = await send('POST', `/api/sdk/tweets/${tweet.id}/like`, {});
        return [{ like: { id: like.id, parentType: 'tweets', parentId: tweet.id, likeCount: 1 } }];
      },
    },
    {
      variant: 'of a task',
      raise: async ({ send }) => {
        const task = await send('POST', '/api/sdk/tasks', {
          title: 'liked',
          dueAt: '2030-01-01T00:00:00.000Z',
        });
        const like = await send('POST', `/api/sdk/tasks/${task.id}/like`, {});
        return [{ like: { id: like.id, parentType: 'tasks', parentId: task.id, likeCount: 1 } }];
      },
    },
  ],
  'member.joined': [
    {
      variant: 'one member added',
      raise: async ({ send }) => {
        const member = await send('POST', '/api/sdk/members', { email: `${unique('joiner')}@example.test` });
        return [{ member: { id: member.id, role: 'MEMBER' } }];
      },
    },
    {
      variant: 'members added in bulk',
      raise: async ({ send }) => {
        const emails = [`${unique('bulk')}@example.test`, `${unique('bulk')}@example.test`];
        await send('POST', '/api/sdk/members/bulk', {
          members: [
            { email: emails[0], name: 'Bulk' },
            { email: emails[1], role: 'ADMIN' },
          ],
        });
        return [
          { member: { email: emails[0], name: 'Bulk' } },
          { member: { email: emails[1], role: 'ADMIN' } },
        ];
      },
    },
  ],
  'member.updated': [
    {
      variant: 'a new role',
      raise: async ({ send }) => {
        const member = await send('POST', '/api/sdk/members', {
          email: `${unique('promoted')}@example.test`,
        });
        await send('PATCH', `/api/sdk/members/${member.id}/role`, { role: 'MODERATOR' });
        return [{ member: { id: member.id, role: 'MODERATOR' }, previousRole: 'MEMBER' }];
      },
    },
  ],
  'customization.updated': [
    {
      variant: 'the sidebar',
      raise: async ({ send }) => {
        const items = [
          { label: 'Home', url: '/home', icon: 'house' },
          { label: 'Docs', url: 'https://docs.example.com' },
        ];
        await send('PUT', '/api/sdk/customization/sidebar', { items });
        return [{ kind: 'sidebar', sidebar: { items } }];
      },
    },
    {
      variant: 'an advertisement created, updated and deleted',
      raise: async ({ send }) => {
        const ad = await send('POST', '/api/sdk/customization/advertisements', {
          title: 'Ad',
          imageUrl: 'https://img.example.com/a.png',
          targetUrl: 'https://example.com',
          startsAt: '2026-01-01T00:00:00.000Z',
          endsAt: '2027-01-01T00:00:00.000Z',
        });
        await send('PATCH', `/api/sdk/customization/advertisements/${ad.id}`, { title: 'Ad, renamed' });
        await send('DELETE', `/api/sdk/customization/advertisements/${ad.id}`);
        return [
          { kind: 'advertisement', action: 'created', advertisement: { id: ad.id, title: 'Ad' } },
          { kind: 'advertisement', action: 'updated', advertisement: { id: ad.id, title: 'Ad, renamed' } },
          { kind: 'advertisement', action: 'deleted', advertisement: { id: ad.id } },
        ];
      },
    },
  ],
  'embed.session.created': [
    {
      variant: 'a session for any origin',
      raise: async ({ send }) => {
        const session = await send('POST', '/api/embed/sessions', {});
        return [{ session: { id: session.id, allowedOrigin: null, userRef: null } }];
      },
    },
    {
      variant: 'a session for one origin and one user',
      raise: async ({ send }) => {
        const body = { allowedOrigin: 'https://blog.example.com', userRef: 'u-1' };
        const session = await send('POST', '/api/embed/sessions', body);
        return [{ session: { id: session.id, ...body } }];
      },
    },
  ],
  'webhook.test': [
    {
      variant: 'the test route',
      raise: async ({ send, communityId, endpointId }) => {
        await send('POST', `/api/communities/${communityId}/webhooks/${endpointId}/test`);
        return [{ endpointId }];
      },
    },
  ],
};

const TRIGGERS_FILE = /\.event-triggers\.ts$/;

/**
 * Every catalog event's triggers: the central ones above and every `*.event-triggers.ts` file under
 * test/. The central delivery tests (events.e2e-spec.ts, event-schemas.e2e-spec.ts) iterate over
 * this map, so a new event is added in its module's triggers file and nowhere else in those tests.
 * An event without a trigger, or with two, fails them at once, naming it, instead of waiting for a
 * delivery that never comes.
 */
function triggersFiles(): {
  file: string;
  exports: { EVENT_TRIGGERS: EventTriggers; EXPECTED_SUBJECTS?: ExpectedSubjects };
}[] {
  const testRoot = join(__dirname, '..');
  return readdirSync(testRoot, { recursive: true, encoding: 'utf8' })
    .filter((file) => TRIGGERS_FILE.test(file))
    .sort()
    .map((file) => ({
      file,
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- found at run time, by name
      exports: require(join(testRoot, file)),
    }));
}

function triggersOfEveryEvent(): { [K in EventType]: readonly [EventTrigger, ...EventTrigger[]] } {
  const merged: EventTriggers = { ...CENTRAL_TRIGGERS };
  for (const { file, exports } of triggersFiles()) {
    for (const [type, list] of Object.entries(exports.EVENT_TRIGGERS)) {
      if (type in merged) throw new Error(`${file}: ${type} has triggers elsewhere already`);
      merged[type as EventType] = list as readonly [EventTrigger, ...EventTrigger[]];
    }
  }
  const missing = EVENT_TYPES.filter((type) => !merged[type]);
  if (missing.length > 0) {
    throw new Error(
      `No trigger for ${missing.join(', ')}: add one in test/<feature>/<feature>.event-triggers.ts`,
    );
  }
  return merged as { [K in EventType]: readonly [EventTrigger, ...EventTrigger[]] };
}

export const EVENT_TRIGGERS = triggersOfEveryEvent();

/**
 * Every subscribable event's expected subject: `central` (events.e2e-spec.ts) and the `EXPECTED_SUBJECTS`
 * of every `*.event-triggers.ts` file. An event without one, or with two, fails at once, naming it.
 */
export function subjectsOfEveryEvent(
  central: ExpectedSubjects,
): Record<SubscribableEvent, (body: Delivered) => string> {
  const merged: ExpectedSubjects = { ...central };
  for (const { file, exports } of triggersFiles()) {
    for (const [type, subject] of Object.entries(exports.EXPECTED_SUBJECTS ?? {})) {
      if (type in merged) throw new Error(`${file}: ${type} has an expected subject elsewhere already`);
      merged[type as SubscribableEvent] = subject;
    }
  }
  const missing = SUBSCRIBABLE_EVENTS.filter((type) => !merged[type]);
  if (missing.length > 0) {
    throw new Error(
      `No expected subject for ${missing.join(', ')}: add one to EXPECTED_SUBJECTS in test/<feature>/<feature>.event-triggers.ts`,
    );
  }
  return merged as Record<SubscribableEvent, (body: Delivered) => string>;
}

/** Whether `actual` holds every value of `expected` (objects by their keys, arrays item by item). */
export function holds(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((e, i) => holds(actual[i], e))
    );
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object') return false;
    const object = actual as Record<string, unknown>;
    return Object.entries(expected).every(([key, value]) => key in object && holds(object[key], value));
  }
  return Object.is(actual, expected);
}

export interface Delivered {
  id: string;
  type: string;
  communityId: string;
  timestamp: string;
  subject: string;
  data: Record<string, unknown>;
}

export interface Raised {
  type: EventType;
  variant: string;
  data: ExpectedData;
}

/** Runs the triggers of `types` in catalog order, one after the other; returns every event they expect. */
export async function raiseEvents(
  ctx: TriggerContext,
  types: readonly EventType[],
  pick: (triggers: readonly EventTrigger[]) => readonly EventTrigger[],
): Promise<Raised[]> {
  const raised: Raised[] = [];
  for (const type of types) {
    for (const trigger of pick(EVENT_TRIGGERS[type])) {
      const expected = await trigger.raise(ctx);
      raised.push(...expected.map((data) => ({ type, variant: trigger.variant, data })));
    }
  }
  return raised;
}

/** The triggers' context for the community's owner holding `token`. */
export function ownerContext(
  app: NestFastifyApplication,
  token: string,
  communityId: string,
  endpointId: string,
): TriggerContext {
  return {
    communityId,
    endpointId,
    send: async (method, url, body) => {
      const res = await call(app, method, url, { token, body });
      expect([200, 201]).toContain(res.status);
      return res.body.data as { id: string };
    },
  };
}

/** The raised events no delivered body matches yet. */
function undelivered(raised: readonly Raised[], delivered: readonly Delivered[]): Raised[] {
  return raised.filter((r) => !delivered.some((d) => d.type === r.type && holds(d.data, r.data)));
}

/** Waits until every raised event has a delivered body that matches it; fails naming those that have none. */
export async function waitForDeliveries(
  raised: readonly Raised[],
  received: () => Delivered[],
): Promise<Delivered[]> {
  return waitFor('a delivery of every raised event', () => {
    const delivered = received();
    return undelivered(raised, delivered).length === 0 && delivered;
  }).catch((error: Error) => {
    const missing = undelivered(raised, received()).map((r) => `${r.type} (${r.variant})`);
    throw new Error(`${error.message}; not delivered: ${missing.join(', ')}`);
  });
}
