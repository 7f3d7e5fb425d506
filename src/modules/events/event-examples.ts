import type { EventType } from './event-catalog';
import type { EventPayload } from './event-payloads';

const COMMUNITY_ID = '0b6a3f1e-5c2d-4e8f-9a1b-2c3d4e5f6a7b';
const USER_ID = '6f1d2c3b-4a59-4e8f-8a7b-1c2d3e4f5a6b';
const TWEET_ID = '9c8b7a6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d';
const AT = '2026-11-23T12:00:00.000Z';

const tweet = {
  id: TWEET_ID,
  communityId: COMMUNITY_ID,
  authorId: USER_ID,
  content: 'Hello, community!',
  likeCount: 0,
  commentCount: 0,
  createdAt: AT,
  updatedAt: AT,
};

const member = {
  id: '3e2d1c0b-9a8f-4e7d-8c6b-5a4f3e2d1c0b',
  userId: USER_ID,
  email: 'ada@example.com',
  name: 'Ada',
  role: 'MEMBER' as const,
  joinedAt: AT,
};

/**
 * One realistic `data` per event, published beside its schema. Typed by the schema-derived type,
 * so an example that no longer fits its schema fails to compile (and a unit test validates each).
 */
export const EVENT_EXAMPLES: { [K in EventType]: EventPayload<K> } = {
  'community.updated': {
    community: {
      id: COMMUNITY_ID,
      slug: 'makers',
      name: 'Makers',
      plan: 'PRO',
      customDomain: null,
      createdAt: AT,
      description: 'People who make things',
      visibility: 'PUBLIC',
      allowMemberPosts: true,
      customDomainPending: null,
      branding: { logoUrl: null, faviconUrl: null, primaryColor: '#1A2B3C', accentColor: null },
      updatedAt: AT,
    },
    changed: ['description'],
  },
  'tweet.created': { tweet },
  'tweet.updated': { tweet: { ...tweet, content: 'Hello, community! (edited)' } },
  'tweet.deleted': { tweet },
  'comment.created': {
    comment: {
      id: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
      communityId: COMMUNITY_ID,
      parentType: 'tweets',
      parentId: TWEET_ID,
      authorId: USER_ID,
      content: 'Welcome!',
      createdAt: AT,
    },
  },
  'like.created': {
    like: {
      id: '2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e',
      parentType: 'tweets',
      parentId: TWEET_ID,
      userId: USER_ID,
      liked: true,
      likeCount: 1,
      createdAt: AT,
    },
  },
  'member.joined': { member },
  'member.updated': { member: { ...member, role: 'MODERATOR' }, previousRole: 'MEMBER' },
  'customization.updated': {
    kind: 'sidebar',
    sidebar: { items: [{ label: 'Home', url: '/home', icon: 'house' }], updatedAt: AT },
  },
  'embed.session.created': {
    session: {
      id: '4d5e6f7a-8b9c-4d0e-8f1a-2b3c4d5e6f7a',
      allowedOrigin: 'https://blog.example.com',
      userRef: null,
      expiresAt: '2026-11-23T13:00:00.000Z',
      createdAt: AT,
      createdById: USER_ID,
      embedUrl: `https://community.example.com/embed/${COMMUNITY_ID}?session=4d5e6f7a-8b9c-4d0e-8f1a-2b3c4d5e6f7a`,
    },
  },
  'webhook.test': {
    endpointId: '5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b',
    message: 'Test delivery from the community platform',
  },
};
