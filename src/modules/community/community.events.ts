import { defineEvent, EXAMPLE } from '../events/define-event';
import { dateTime, nullableString, uuid } from '../events/payload-schema';

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
    'portalAllowedOrigins',
    'logoUrl',
    'faviconUrl',
    'primaryColor',
    'accentColor',
  ],
} as const;

/** Community fields a `community.updated` names in `changed`. */
export type CommunityField = (typeof communityField.enum)[number];

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
    'portalAllowedOrigins',
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
    portalAllowedOrigins: { type: 'array', items: { type: 'string' } },
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

export const COMMUNITY_EVENTS = [
  defineEvent({
    type: 'community.updated',
    description: 'Settings or branding of the community changed',
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['community', 'changed'],
      properties: {
        community,
        changed: { type: 'array', items: communityField, minItems: 1, uniqueItems: true },
      },
    },
    example: {
      community: {
        id: EXAMPLE.communityId,
        slug: 'makers',
        name: 'Makers',
        plan: 'PRO',
        customDomain: null,
        createdAt: EXAMPLE.at,
        description: 'People who make things',
        visibility: 'PUBLIC',
        allowMemberPosts: true,
        customDomainPending: null,
        portalAllowedOrigins: [],
        branding: { logoUrl: null, faviconUrl: null, primaryColor: '#1A2B3C', accentColor: null },
        updatedAt: EXAMPLE.at,
      },
      changed: ['description'],
    },
    subject: ['community', 'id'],
  }),
] as const;
