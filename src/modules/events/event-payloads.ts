import type { SdkCommunityDto } from '../community/dto/community.dto';
import type { CommentDto } from '../content/dto/comment.dto';
import type { LikeDto } from '../content/dto/like.dto';
import type { TweetDto } from '../content/dto/tweet.dto';
import type { AdvertisementDto } from '../customization/dto/advertisement.dto';
import type { SidebarDto } from '../customization/dto/sidebar.dto';
import type { MemberView } from '../members/member-view';
import type { EventType } from './event-catalog';

/*
 * What each event's `data` holds, written twice side by side: the TypeScript type the code that
 * raises the event must pass (EventDataMap, built from the routes' own response DTOs), and the JSON
 * Schema that GET /api/webhooks/event-types and the OpenAPI document publish (EVENT_PAYLOAD_SCHEMAS).
 * They are kept in agreement by tests, not by derivation (README, "Event payloads"): every schema
 * forbids unknown fields and requires every field, the delivery e2e test validates the real body of
 * every event against it, and the examples (typed by EventPayload) are validated in a unit test.
 *
 * Keywords are kept to the subset that OpenAPI 3.0 and JSON Schema share (single `type`,
 * `nullable`, `enum`, `oneOf`, `format`, `additionalProperties: false`), so the same object is valid
 * in the OpenAPI document's components and in a receiver's JSON Schema validator.
 */

export const uuid = { type: 'string', format: 'uuid' } as const;
export const dateTime = { type: 'string', format: 'date-time' } as const;
const nullableString = { type: 'string', nullable: true } as const;
const parentType = { type: 'string', enum: ['tweets', 'tasks'] } as const;
const role = { type: 'string', enum: ['OWNER', 'ADMIN', 'MODERATOR', 'MEMBER'] } as const;

/** An object schema whose every property is required and no other allowed. */
function everyFieldRequired<P extends Record<string, unknown>>(properties: P) {
  return {
    type: 'object',
    additionalProperties: false,
    required: Object.keys(properties),
    properties,
  } as const;
}

const tweet = everyFieldRequired({
  id: uuid,
  communityId: uuid,
  authorId: uuid,
  content: { type: 'string' },
  likeCount: { type: 'integer', minimum: 0 },
  commentCount: { type: 'integer', minimum: 0 },
  createdAt: dateTime,
  updatedAt: dateTime,
});

const tweetEvent = {
  type: 'object',
  additionalProperties: false,
  required: ['tweet'],
  properties: { tweet },
} as const;

const member = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'userId', 'email', 'name', 'role', 'joinedAt'],
  properties: {
    id: uuid,
    userId: uuid,
    email: { type: 'string' },
    name: { type: 'string', description: "the membership's display name in this community" },
    role,
    joinedAt: dateTime,
  },
} as const;

/** Community fields a `community.updated` may name in `changed` (the pending-domain columns read as one). */
const communityField = {
  type: 'string',
  enum: [
    'name',
    'description',
    'visibility',
    'allowMemberPosts',
    'customDomain',
    'customDomainPending',
    'logoUrl',
    'faviconUrl',
    'primaryColor',
    'accentColor',
  ],
} as const;

const community = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'slug',
    'name',
    'plan',
    'customDomain',
    'createdAt',
    'description',
    'visibility',
    'allowMemberPosts',
    'customDomainPending',
    'branding',
    'updatedAt',
  ],
  properties: {
    id: uuid,
    slug: { type: 'string' },
    name: { type: 'string' },
    plan: { type: 'string', enum: ['FREE', 'PRO', 'ENTERPRISE'] },
    customDomain: nullableString,
    createdAt: dateTime,
    description: { type: 'string' },
    visibility: { type: 'string', enum: ['PUBLIC', 'PRIVATE'] },
    allowMemberPosts: { type: 'boolean' },
    customDomainPending: {
      type: 'object',
      nullable: true,
      additionalProperties: false,
      required: ['domain', 'txtRecord', 'requestedAt'],
      properties: {
        domain: { type: 'string' },
        txtRecord: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'value'],
          properties: { name: { type: 'string' }, value: { type: 'string' } },
        },
        requestedAt: dateTime,
      },
    },
    branding: {
      type: 'object',
      additionalProperties: false,
      required: ['logoUrl', 'faviconUrl', 'primaryColor', 'accentColor'],
      properties: {
        logoUrl: nullableString,
        faviconUrl: nullableString,
        primaryColor: nullableString,
        accentColor: nullableString,
      },
    },
    updatedAt: dateTime,
  },
} as const;

const advertisement = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'title',
    'imageUrl',
    'targetUrl',
    'placement',
    'startsAt',
    'endsAt',
    'isActive',
    'createdAt',
    'updatedAt',
  ],
  properties: {
    id: uuid,
    title: { type: 'string' },
    imageUrl: { type: 'string' },
    targetUrl: { type: 'string' },
    placement: { type: 'string' },
    startsAt: dateTime,
    endsAt: dateTime,
    isActive: { type: 'boolean' },
    createdAt: dateTime,
    updatedAt: dateTime,
  },
} as const;

const sidebarItem = {
  type: 'object',
  additionalProperties: false,
  required: ['label', 'url'],
  properties: { label: { type: 'string' }, url: { type: 'string' }, icon: { type: 'string' } },
} as const;

/** The payload schema of each event's `data`, one entry per catalog name (the compiler checks the keys). */
export const EVENT_PAYLOAD_SCHEMAS = {
  'community.updated': {
    type: 'object',
    additionalProperties: false,
    required: ['community', 'changed'],
    properties: {
      community,
      changed: { type: 'array', items: communityField, minItems: 1, uniqueItems: true },
    },
  },
  'tweet.created': tweetEvent,
  'tweet.updated': tweetEvent,
  'tweet.deleted': tweetEvent,
  'comment.created': {
    type: 'object',
    additionalProperties: false,
    required: ['comment'],
    properties: {
      comment: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'communityId', 'parentType', 'parentId', 'authorId', 'content', 'createdAt'],
        properties: {
          id: uuid,
          communityId: uuid,
          parentType,
          parentId: uuid,
          authorId: uuid,
          content: { type: 'string' },
          createdAt: dateTime,
        },
      },
    },
  },
  'like.created': {
    type: 'object',
    additionalProperties: false,
    required: ['like'],
    properties: {
      like: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'parentType', 'parentId', 'userId', 'liked', 'likeCount', 'createdAt'],
        properties: {
          id: uuid,
          parentType,
          parentId: uuid,
          userId: uuid,
          liked: { type: 'boolean', enum: [true] },
          likeCount: { type: 'integer', minimum: 0 },
          createdAt: dateTime,
        },
      },
    },
  },
  'member.joined': {
    type: 'object',
    additionalProperties: false,
    required: ['member'],
    properties: { member },
  },
  'member.updated': {
    type: 'object',
    additionalProperties: false,
    required: ['member', 'previousRole'],
    properties: { member, previousRole: role },
  },
  'customization.updated': {
    type: 'object',
    description: 'The whole new sidebar, or one advertisement created, updated or deleted (only its id)',
    oneOf: [
      {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'sidebar'],
        properties: {
          kind: { type: 'string', enum: ['sidebar'] },
          sidebar: {
            type: 'object',
            additionalProperties: false,
            required: ['items', 'updatedAt'],
            properties: { items: { type: 'array', items: sidebarItem }, updatedAt: dateTime },
          },
        },
      },
      {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'action', 'advertisement'],
        properties: {
          kind: { type: 'string', enum: ['advertisement'] },
          action: { type: 'string', enum: ['created', 'updated'] },
          advertisement,
        },
      },
      {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'action', 'advertisement'],
        properties: {
          kind: { type: 'string', enum: ['advertisement'] },
          action: { type: 'string', enum: ['deleted'] },
          advertisement: {
            type: 'object',
            additionalProperties: false,
            required: ['id'],
            properties: { id: uuid },
          },
        },
      },
    ],
  },
  'embed.session.created': {
    type: 'object',
    additionalProperties: false,
    required: ['session'],
    properties: {
      session: {
        type: 'object',
        description: 'The session as stored; its token is a credential and never part of an event',
        additionalProperties: false,
        required: ['id', 'allowedOrigin', 'userRef', 'expiresAt', 'createdAt', 'createdById', 'embedUrl'],
        properties: {
          id: uuid,
          allowedOrigin: nullableString,
          userRef: nullableString,
          expiresAt: dateTime,
          createdAt: dateTime,
          createdById: uuid,
          embedUrl: { type: 'string', format: 'uri' },
        },
      },
    },
  },
  'webhook.test': {
    type: 'object',
    additionalProperties: false,
    required: ['endpointId', 'message'],
    properties: { endpointId: uuid, message: { type: 'string' } },
  },
} as const satisfies Record<EventType, object>;

/** Community fields a `community.updated` names in `changed` (the pending-domain columns read as one). */
export type CommunityField = (typeof communityField.enum)[number];

type EmbedSessionEvent = {
  id: string;
  allowedOrigin: string | null;
  userRef: string | null;
  expiresAt: Date;
  createdAt: Date;
  createdById: string;
  embedUrl: string;
};

/** Each catalog name's `data`, as the code that raises it holds it (instants are Dates). */
export interface EventDataMap {
  'community.updated': { community: SdkCommunityDto; changed: CommunityField[] };
  'tweet.created': { tweet: TweetDto };
  'tweet.updated': { tweet: TweetDto };
  'tweet.deleted': { tweet: TweetDto };
  'comment.created': { comment: CommentDto };
  'like.created': { like: LikeDto };
  'member.joined': { member: MemberView };
  'member.updated': { member: MemberView; previousRole: MemberView['role'] };
  'customization.updated':
    | { kind: 'sidebar'; sidebar: SidebarDto & { updatedAt: Date } }
    | { kind: 'advertisement'; action: 'created' | 'updated'; advertisement: AdvertisementDto }
    | { kind: 'advertisement'; action: 'deleted'; advertisement: { id: string } };
  'embed.session.created': { session: EmbedSessionEvent };
  'webhook.test': { endpointId: string; message: string };
}

/** An event's `data` as the code that raises it holds it (indexing by K fails to compile if a name is missing). */
export type EventData<K extends EventType> = EventDataMap[K];

/** What JSON.stringify makes of a value: Dates become ISO-8601 strings. */
type Jsonified<T> = T extends Date
  ? string
  : T extends readonly (infer E)[]
    ? Jsonified<E>[]
    : T extends object
      ? { [P in keyof T]: Jsonified<T[P]> }
      : T;

/** An event's `data` as a receiver gets it. */
export type EventPayload<K extends EventType> = Jsonified<EventDataMap[K]>;
