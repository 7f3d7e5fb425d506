import fastifyStatic from '@fastify/static';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CommunitiesStore, type PortalPageCommunity } from '../modules/community/communities.store';
import { parsePortalOrigin } from '../modules/community/portal-origins';
import { PORTAL_COMMUNITY_PARAM, PORTAL_PATH, PORTAL_SECTIONS } from '../modules/webhooks/portal/portal-page';

/** Where `npm run build` puts the webhook portal (the same place from src/ under jest and from dist/). */
export const PORTAL_DIR = resolve(__dirname, '..', '..', 'dist', 'portal');

/**
 * The portal's policy: its own scripts, styles and API only; no inline code, framed by nobody (the page
 * itself: see portalPageCsp), no other origin (nothing from a CDN), and no referrer so no address leaks.
 */
export const PORTAL_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** A community id (uuid) or slug as a link may carry it; anything else is not looked up. */
const COMMUNITY_REF = /^[A-Za-z0-9-]{1,64}$/;

/**
 * The page's policy for the community its URL names (docs/product-decisions.md#10-webhook-portal-embedding):
 * framed only by that community's allowed origins ('none' without one), and its logo's https origin added to
 * img-src. Each value passes parsePortalOrigin again here, so no stored value can add a directive.
 */
export function portalPageCsp(community: PortalPageCommunity | null): string {
  const origins = (community?.portalAllowedOrigins ?? []).filter((o) => parsePortalOrigin(o) === o);
  const logo = logoOrigin(community?.logoUrl ?? null);
  return PORTAL_CSP.replace("img-src 'self' data:", `img-src 'self' data:${logo ? ` ${logo}` : ''}`).replace(
    "frame-ancestors 'none'",
    `frame-ancestors ${origins.length > 0 ? origins.join(' ') : "'none'"}`,
  );
}

/** The origin of an https logo, the only kind the page shows (an http one would be mixed content). */
function logoOrigin(logoUrl: string | null): string | null {
  if (!logoUrl) return null;
  try {
    return parsePortalOrigin(new URL(logoUrl).origin);
  } catch {
    return null;
  }
}

/** The community a page request's `?community=` names, or null: absent, repeated, malformed or unknown. */
async function pageCommunity(
  request: FastifyRequest,
  communities: CommunitiesStore,
): Promise<PortalPageCommunity | null> {
  const ref = (request.query as Record<string, unknown> | undefined)?.[PORTAL_COMMUNITY_PARAM];
  if (typeof ref !== 'string' || !COMMUNITY_REF.test(ref)) return null;
  try {
    return await communities.findPortalPage(ref);
  } catch {
    // the page still loads (it shows the service's errors itself), framed by nobody
    return null;
  }
}

/**
 * Serves the webhook portal (docs/api.md#webhook-portal) at /portal/, outside /api: file names under assets/
 * carry a content hash, so they are cached for a year; index.html is never cached, so a deploy shows at once.
 * The page itself is answered by its own route, whose policy depends on the community in its URL; every other
 * file keeps the fixed policy (frame-ancestors 'none': a script or style is not framed, and the icon, an SVG,
 * must not be framed as a document either). Without a built portal (jest runs from src/) nothing is registered.
 */
export async function servePortal(app: NestFastifyApplication): Promise<boolean> {
  if (!existsSync(join(PORTAL_DIR, 'index.html'))) return false;
  const html = readFileSync(join(PORTAL_DIR, 'index.html'));
  const communities = app.get(CommunitiesStore, { strict: false });
  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    const community = await pageCommunity(request, communities);
    const csp = portalPageCsp(community);
    void reply
      .header('cache-control', 'no-cache, no-store, must-revalidate')
      .header('content-security-policy', csp)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .type('text/html; charset=utf-8');
    // the older header for browsers without frame-ancestors: it cannot list origins, so it only says DENY
    if (csp.includes("frame-ancestors 'none'")) void reply.header('x-frame-options', 'DENY');
    return reply.send(html);
  };
  await app.register(fastifyStatic, {
    root: PORTAL_DIR,
    prefix: PORTAL_PATH,
    redirect: true,
    index: false,
    cacheControl: false,
    decorateReply: false,
    setHeaders: (reply, path) => {
      const hashed = path.startsWith(join(PORTAL_DIR, 'assets'));
      reply.header(
        'cache-control',
        hashed ? 'public, max-age=31536000, immutable' : 'no-cache, no-store, must-revalidate',
      );
      reply.header('content-security-policy', PORTAL_CSP);
      reply.header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'no-referrer');
    },
  });
  // the bare address (what the banner prints) lands on the page; a browser's own look for
  // /favicon.ico (before it reads the page's icon link) finds the portal's icon, not a 401
  const fastify = app.getHttpAdapter().getInstance();
  // the page's own routes win over the static files' wildcard
  fastify.get(PORTAL_PATH, page);
  fastify.get(`${PORTAL_PATH}index.html`, page);
  // each section's address is the page too, so a reload (or a link) keeps the section the address names;
  // anything else under /portal/ is a file or nothing
  for (const section of PORTAL_SECTIONS) {
    fastify.get(`${PORTAL_PATH}${section}`, page);
    fastify.get(`${PORTAL_PATH}${section}/*`, page);
  }
  fastify.get('/portal', (_request, reply) => reply.redirect(PORTAL_PATH, 301));
  fastify.get('/favicon.ico', (_request, reply) => reply.redirect(`${PORTAL_PATH}favicon.svg`, 301));
  return true;
}
