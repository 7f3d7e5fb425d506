import { defineEvent, EXAMPLE } from '../events/define-event';
import { dateTime, uuid } from '../events/payload-schema';

const role = { type: 'string', enum: ['OWNER', 'ADMIN', 'MODERATOR', 'MEMBER'] } as const;

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

const exampleMember = {
  id: '3e2d1c0b-9a8f-4e7d-8c6b-5a4f3e2d1c0b',
  userId: EXAMPLE.userId,
  email: 'ada@example.com',
  name: 'Ada',
  role: 'MEMBER',
  joinedAt: EXAMPLE.at,
} as const;

export const MEMBER_EVENTS = [
  defineEvent({
    type: 'member.joined',
    description: 'A member joined the community (created, invited or bulk-upserted)',
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['member'],
      properties: { member },
    },
    example: { member: exampleMember },
    subject: ['member', 'id'],
  }),
  defineEvent({
    type: 'member.updated',
    description: "A member's role or name changed",
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['member', 'previousRole'],
      properties: { member, previousRole: role },
    },
    example: { member: { ...exampleMember, role: 'MODERATOR' }, previousRole: 'MEMBER' },
    subject: ['member', 'id'],
  }),
] as const;
