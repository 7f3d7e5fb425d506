import { ValidationOptions, registerDecorator } from 'class-validator';

export const MAX_URL_LENGTH = 2048;

/** An absolute http(s) URL with a host. */
export function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** A path on the community's own site: starts with one '/' ('//host' would leave it), no spaces. */
export function isRelativePath(value: unknown): boolean {
  return typeof value === 'string' && /^\/(?![/\\])\S*$/.test(value);
}

function urlDecorator(name: string, test: (v: unknown) => boolean, message: string) {
  return (options?: ValidationOptions) => (target: object, propertyName: string) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName,
      options: { message: `$property ${message}`, ...options },
      validator: { validate: test },
    });
}

export const IsHttpUrl = urlDecorator('isHttpUrl', isHttpUrl, 'must be an http(s) URL');
export const IsHttpUrlOrPath = urlDecorator(
  'isHttpUrlOrPath',
  (v) => isHttpUrl(v) || isRelativePath(v),
  "must be an http(s) URL or a path starting with '/'",
);
