import fastifyStatic from '@fastify/static';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Where `npm run build` puts the webhook portal (the same place from src/ under jest and from dist/). */
export const PORTAL_DIR = resolve(__dirname, '..', '..', 'dist', 'portal');
export const PORTAL_PATH = '/portal/';

/**
 * The portal's policy: its own scripts, styles and API only; no inline code, no frames, no other
 * origin (nothing from a CDN), and no referrer so no address leaks anywhere.
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

/**
 * Serves the webhook portal (docs/api.md#webhook-portal) at /portal/, outside /api: file names under assets/
 * carry a content hash, so they are cached for a year; index.html is never cached, so a deploy shows at once.
 * Without a built portal (jest runs from src/) nothing is registered.
 */
export async function servePortal(app: NestFastifyApplication): Promise<boolean> {
  if (!existsSync(join(PORTAL_DIR, 'index.html'))) return false;
  await app.register(fastifyStatic, {
    root: PORTAL_DIR,
    prefix: PORTAL_PATH,
    redirect: true,
    index: 'index.html',
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
  fastify.get('/portal', (_request, reply) => reply.redirect(PORTAL_PATH, 301));
  fastify.get('/favicon.ico', (_request, reply) => reply.redirect(`${PORTAL_PATH}favicon.svg`, 301));
  return true;
}
