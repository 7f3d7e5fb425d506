import { ValidateBy, ValidationOptions } from 'class-validator';
import ms from 'ms';
import { isIP } from 'node:net';

/*
 * How AppConfig reads its settings: the parsers (durations, lists, key rings, booleans and numbers
 * from environment strings) and the class-validator decorators that name a bad value at start-up.
 * The settings themselves, their defaults and the loader are in app-config.ts.
 */

/** Milliseconds of a duration in `ms` syntax; throws on anything `ms` cannot read. */
export function durationMs(value: string): number {
  const parsed = ms(value.trim() as ms.StringValue);
  if (typeof parsed !== 'number' || !Number.isFinite(parsed)) throw new Error(`not a duration: ${value}`);
  return parsed;
}

/** Milliseconds of each duration of a comma-separated list (`5s, 5m, 30m`). */
export function durationListMs(value: string): number[] {
  return value.split(',').map((entry) => durationMs(entry));
}

/**
 * A duration is anything the `ms` package reads: `250ms`, `90s`, `1.5h`, `7 days`, `2 weeks`, `1y`.
 * A plain number is milliseconds, as `ms` reads it (`90` is 90 ms, not 90 s). Negative values are refused.
 */
function isDuration(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    return durationMs(value) >= 0;
  } catch {
    return false;
  }
}

export function IsDuration(
  example: string,
  options?: ValidationOptions & { list?: boolean },
): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isDuration',
      validator: {
        validate: (value: unknown) =>
          options?.list
            ? typeof value === 'string' && value.split(',').every((part) => isDuration(part))
            : isDuration(value),
        defaultMessage: (args) =>
          options?.list
            ? `${args?.property} must be a comma-separated list of durations such as ${example} ` +
              `(ms syntax: 90s, 1.5h, 7 days; a plain number is milliseconds), got '${String(args?.value)}'`
            : `${args?.property} must be a duration such as ${example} ` +
              `(ms syntax: 90s, 1.5h, 7 days; a plain number is milliseconds), got '${String(args?.value)}'`,
      },
    },
    options,
  );
}

/** A duration above zero: a zero-length rate-limit window would mean no limit at all. */
export function IsPositiveDuration(example: string): PropertyDecorator {
  return ValidateBy({
    name: 'isPositiveDuration',
    validator: {
      validate: (value: unknown) => isDuration(value) && durationMs(value as string) > 0,
      defaultMessage: (args) =>
        `${args?.property} must be a duration above zero such as ${example} ` +
        `(ms syntax: 90s, 15m, 1h), got '${String(args?.value)}'`,
    },
  });
}

export const toBool = ({ value }: { value: unknown }) =>
  value === undefined ? undefined : value === true || value === 'true' || value === '1';
export const toInt = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : Number(value);

/** A DNS name (single labels such as `localhost` too), optionally ending in a dot. */
export const HOSTNAME =
  /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

/** One DNS server as Node's resolver takes it: `1.2.3.4`, `1.2.3.4:5353`, `::1` or `[::1]:5353`. */
export function isDnsServer(entry: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry);
  const withPort = /^([^:]+):(\d{1,5})$/.exec(entry);
  const [address, port] = bracketed
    ? [bracketed[1], bracketed[2]]
    : withPort
      ? [withPort[1], withPort[2]]
      : [entry, undefined];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return false;
  return bracketed || !withPort ? isIP(address) !== 0 : isIP(address) === 4;
}

/** One Redis Cluster seed node: `host:port`, the host a name or an IPv4 address (`[v6]:port` for IPv6). */
export function isHostPort(entry: string): boolean {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(entry);
  if (!match) return false;
  const port = Number(match[3]);
  if (port < 1 || port > 65535) return false;
  return match[1] !== undefined ? isIP(match[1]) === 6 : HOSTNAME.test(match[2]) || isIP(match[2]) === 4;
}

/** A comma-separated setting each of whose entries passes `check`. */
export const IsListOf = (check: (entry: string) => boolean, message: string) =>
  ValidateBy({
    name: 'isListOf',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'string' && value.split(',').every((entry) => check(entry.trim())),
      defaultMessage: () => message,
    },
  });

const ENCRYPTION_KEY = /^[A-Za-z0-9+/]{43}=$/;

/**
 * What is wrong with a key ring (comma-separated base64 keys of 32 bytes, newest first), or null.
 * Entries are named by position, never by value: the message reaches logs and terminals.
 */
export function keyRingProblem(value: string): string | null {
  const entries = value.split(',').map((entry) => entry.trim());
  const seen = new Map<string, number>();
  for (const [index, entry] of entries.entries()) {
    const position = `entry ${index + 1} of ${entries.length}`;
    if (entry === '') return `${position} is empty (keys are separated by single commas)`;
    if (!ENCRYPTION_KEY.test(entry))
      return `${position} is not base64 of 32 bytes (generate one: openssl rand -base64 32)`;
    // decoded bytes, so two spellings of one key are caught as well
    const bytes = Buffer.from(entry, 'base64').toString('hex');
    const earlier = seen.get(bytes);
    if (earlier !== undefined) return `${position} repeats entry ${earlier + 1}: each key must appear once`;
    seen.set(bytes, index);
  }
  return null;
}

export const IsEncryptionKeyRing = () =>
  ValidateBy({
    name: 'isEncryptionKeyRing',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && keyRingProblem(value) === null,
      defaultMessage: (args) =>
        'WEBHOOK_SECRET_ENCRYPTION_KEY must be base64 keys of 32 bytes, comma-separated, newest first: ' +
        (typeof args?.value === 'string' ? keyRingProblem(args.value) : 'not a string'),
    },
  });

/** An address a server may listen on: an IP address or a hostname. */
export const IsListenAddress = (name: string) =>
  ValidateBy({
    name: 'isListenAddress',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && (isIP(value) !== 0 || HOSTNAME.test(value)),
      defaultMessage: (args) =>
        `${name} must be an IP address or a hostname (e.g. 127.0.0.1 or 0.0.0.0), got '${String(args?.value)}'`,
    },
  });

/** Whether a PostgreSQL URL asks for PgBouncer's transaction mode (`?pgbouncer=true`). */
export function urlSaysPgbouncer(url: string | undefined): boolean {
  if (!url) return false;
  try {
    return new URL(url).searchParams.get('pgbouncer') === 'true';
  } catch {
    return false;
  }
}
