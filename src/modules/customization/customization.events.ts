import { defineEvent, EXAMPLE } from '../events/define-event';
import { dateTime, uuid } from '../events/payload-schema';

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

export const CUSTOMIZATION_EVENTS = [
  defineEvent({
    type: 'customization.updated',
    description: 'The sidebar or an advertisement changed',
    schema: {
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
    example: {
      kind: 'sidebar',
      sidebar: { items: [{ label: 'Home', url: '/home', icon: 'house' }], updatedAt: EXAMPLE.at },
    },
    // the sidebar is the community's own (one per community): its events are about the community
    subject: ['advertisement', 'id'],
  }),
] as const;
