import { defineEvent, EXAMPLE } from '../events/define-event';
import { dateTime, nullableString, uuid } from '../events/payload-schema';

const SESSION_ID = '4d5e6f7a-8b9c-4d0e-8f1a-2b3c4d5e6f7a';

export const EMBED_EVENTS = [
  defineEvent({
    type: 'embed.session.created',
    description: 'An embed session was created',
    schema: {
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
    example: {
      session: {
        id: SESSION_ID,
        allowedOrigin: 'https://blog.example.com',
        userRef: null,
        expiresAt: '2026-11-23T13:00:00.000Z',
        createdAt: EXAMPLE.at,
        createdById: EXAMPLE.userId,
        embedUrl: `https://community.example.com/embed/${EXAMPLE.communityId}?session=${SESSION_ID}`,
      },
    },
    subject: ['session', 'id'],
  }),
] as const;
