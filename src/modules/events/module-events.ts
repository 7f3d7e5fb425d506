import { COMMUNITY_EVENTS } from '../community/community.events';
import { COMMENT_EVENTS } from '../content/comment.events';
import { LIKE_EVENTS } from '../content/like.events';
import { TWEET_EVENTS } from '../content/tweet.events';
import { CUSTOMIZATION_EVENTS } from '../customization/customization.events';
import { EMBED_EVENTS } from '../embed/embed.events';
import { MEMBER_EVENTS } from '../members/member.events';
import { WEBHOOK_OPERATIONAL_EVENTS } from '../webhooks/core/webhook-operational.events';

/**
 * The events a webhook endpoint may subscribe to, registered one line per module (with its import);
 * each module's definitions are written beside it (define-event.ts). The order is the order
 * GET /api/webhooks/event-types and the OpenAPI document list them in. The catalog
 * (event-catalog.ts) derives everything else from this list.
 */
export const MODULE_EVENTS = [
  ...COMMUNITY_EVENTS,
  ...TWEET_EVENTS,
  ...COMMENT_EVENTS,
  ...LIKE_EVENTS,
  ...MEMBER_EVENTS,
  ...CUSTOMIZATION_EVENTS,
  ...EMBED_EVENTS,
  ...WEBHOOK_OPERATIONAL_EVENTS,
] as const;
