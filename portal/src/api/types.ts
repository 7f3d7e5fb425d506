import type { components } from './openapi';

/**
 * The portal's names for the API's shapes, each taken from the OpenAPI document the service generates from its
 * DTOs (so a field the API adds or renames shows here at `npm run typecheck:portal`, never drifts by hand).
 */
type Schemas = components['schemas'];

export type ErrorBody = Schemas['ErrorBodyDto'];
export type TokenPair = Schemas['TokenPairDto'];
export type PortalSession = Schemas['PortalSessionDto'];
export type Branding = PortalSession['branding'];
export type Community = Schemas['PortalCommunityDto'];
export type EventType = Schemas['EventTypeDto'];
/** An endpoint as the list shows it (with its 24 h counts); create and PATCH answer the same without them. */
export type Webhook = Schemas['WebhookListItemDto'];
export type SavedWebhook = Schemas['WebhookDto'];
export type CreatedWebhook = Schemas['CreatedWebhookDto'];
export type WebhookBody = Schemas['CreateWebhookDto'];
export type EventName = WebhookBody['events'][number];
export type Filter = Schemas['WebhookFilter'];
export type Delivery = Schemas['DeliveryDto'];
export type DeliveryStatus = Delivery['status'];
export type Message = Schemas['MessageDto'];
export type MessagePage = Schemas['MessagePageDto'];
export type CommunityMessage = Schemas['CommunityMessageDto'];
export type RotatedSecret = Schemas['RotatedSecretDto'];
export type Figures = Schemas['EndpointFiguresDto'];
export type FigurePeriod = Figures['period'];
export type Replay = Schemas['ReplayDto'];
export type ReplayRequest = Schemas['CreateReplayDto'];
export type ReplayDryRun = Schemas['ReplayDryRunDto'];

/** A time in the viewer's own time zone. */
export function localTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}
