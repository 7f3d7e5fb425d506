/** Where the API serves the webhook portal's page (src/bootstrap/portal-static.ts), outside /api. */
export const PORTAL_PATH = '/portal/';
/**
 * The query parameter of a portal link naming its community: the page's frame-ancestors are that community's
 * allowed origins (docs/api.md#embedding-the-portal).
 */
export const PORTAL_COMMUNITY_PARAM = 'community';

/** The portal page opened for a community; a portal link adds its token in the fragment. */
export function portalPageUrl(publicBaseUrl: string, communityId: string): string {
  return `${publicBaseUrl}${PORTAL_PATH}?${PORTAL_COMMUNITY_PARAM}=${encodeURIComponent(communityId)}`;
}

/**
 * The portal's sections: each is a page address under PORTAL_PATH (`/portal/replays`, `/portal/endpoints/<id>/log`)
 * that the API answers with the portal's page, so a reload or a shared address opens the same section
 * (docs/api.md#webhook-portal). The portal's router (portal/src/app/routes.ts) reads the same list.
 */
export const PORTAL_SECTIONS = ['endpoints', 'replays', 'search', 'catalog', 'verify'] as const;
