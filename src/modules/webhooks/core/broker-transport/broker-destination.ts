import type { SecretKeyRing } from '../../../../common/crypto/secret-cipher';
import { ipLiteralOf, isBlockedAddress } from '../delivery/url-safety';
import { openText, type SealedText, sealText } from '../http-transport/sealed-text';
import { maskHeaderValue } from '../secrets/endpoint-headers';

/** Where an endpoint's deliveries go (docs/api.md#broker-destinations). */
export const ENDPOINT_TYPES = ['http', 'rabbitmq', 'nats'] as const;
export type EndpointType = (typeof ENDPOINT_TYPES)[number];
export type BrokerType = Exclude<EndpointType, 'http'>;

/** The url schemes of each broker: the TLS one always, the plain one only with insecure targets allowed. */
const SCHEMES: Record<BrokerType, { secure: string; insecure: string }> = {
  rabbitmq: { secure: 'amqps:', insecure: 'amqp:' },
  nats: { secure: 'tls:', insecure: 'nats:' },
};

/** AMQP's short strings (exchange and routing key) are at most 255 bytes. */
export const MAX_AMQP_NAME_BYTES = 255;
/** A NATS subject as a publish names it: dot-separated tokens, no wildcard, no whitespace. */
const NATS_SUBJECT = /^[^\s.*>]+(\.[^\s.*>]+)*$/;
export const MAX_NATS_SUBJECT_LENGTH = 255;
/** An AMQP exchange name: letters, digits, hyphen, underscore, period, colon (RabbitMQ's rule); "" is the default exchange. */
const AMQP_EXCHANGE = /^[A-Za-z0-9_.:-]*$/;

/** The user name and password (or NATS token, as the user name alone) of a broker url. */
export interface BrokerCredentials {
  username: string;
  password: string;
}

/** What the `destination` column holds: the broker's names and the url's credentials, sealed. */
export type StoredDestination =
  | { type: 'rabbitmq'; exchange: string; routingKey: string; credentials: SealedText | null }
  | { type: 'nats'; subject: string; credentials: SealedText | null };

/** What a create or PATCH sends of a broker's names. */
export interface BrokerNames {
  exchange?: string | null;
  routingKey?: string | null;
  subject?: string | null;
}

/** A rule of a broker destination broken; `field` is the request field to name in the 400. */
export class DestinationProblem extends Error {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

/**
 * A broker url split into what is stored in plain (`url`: scheme, host, port, path) and its credentials,
 * or a DestinationProblem naming `url`. The address rules of http targets apply to its host (an IP
 * literal here; a name is resolved by the caller); the port is free, as brokers do not listen on 443.
 */
export function parseBrokerUrl(
  type: BrokerType,
  raw: string,
  allowInsecure: boolean,
): { url: URL; plain: string; credentials: BrokerCredentials | null } {
  const { secure, insecure } = SCHEMES[type];
  const example = `${secure}//broker.example.com${type === 'rabbitmq' ? ':5671/vhost' : ':4222'}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DestinationProblem(`url must be an absolute URL such as ${example}`, 'url');
  }
  if (url.protocol !== secure && !(allowInsecure && url.protocol === insecure))
    throw new DestinationProblem(
      `url of a ${type} endpoint must use ${secure.slice(0, -1)}://` +
        (allowInsecure ? ` or ${insecure.slice(0, -1)}://` : ''),
      'url',
    );
  if (url.hostname === '') throw new DestinationProblem(`url must name a host, as in ${example}`, 'url');
  if (url.search !== '' || url.hash !== '')
    throw new DestinationProblem('url must not have a query or a fragment', 'url');
  if (type === 'nats' && url.pathname !== '' && url.pathname !== '/')
    throw new DestinationProblem('url of a nats endpoint must not have a path', 'url');
  const literal = ipLiteralOf(url);
  if (!allowInsecure && literal !== null && isBlockedAddress(literal))
    throw new DestinationProblem(`url points to a non-public address (${literal})`, 'url');
  const credentials =
    url.username === '' && url.password === ''
      ? null
      : { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
  const bare = new URL(url.href);
  bare.username = '';
  bare.password = '';
  return { url, plain: plainUrl(bare), credentials };
}

/** The url without a trailing "/" on an empty path (URL adds one to special schemes only). */
function plainUrl(url: URL): string {
  return url.href.endsWith('/') && (url.pathname === '/' || url.pathname === '')
    ? url.href.slice(0, -1)
    : url.href;
}

/** The broker's names, checked: the ones of its type required, the others refused. */
export function brokerNames(
  type: EndpointType,
  names: BrokerNames,
): { exchange: string; routingKey: string } | { subject: string } | null {
  const given = (['exchange', 'routingKey', 'subject'] as const).filter(
    (key) => names[key] !== undefined && names[key] !== null,
  );
  const own: (keyof BrokerNames)[] =
    type === 'rabbitmq' ? ['exchange', 'routingKey'] : type === 'nats' ? ['subject'] : [];
  const foreign = given.find((key) => !own.includes(key));
  if (foreign)
    throw new DestinationProblem(
      type === 'http'
        ? `${foreign} belongs to a rabbitmq or nats endpoint; this one is http`
        : `${foreign} does not belong to a ${type} endpoint`,
      foreign,
    );
  if (type === 'http') return null;
  const missing = own.find((key) => typeof names[key] !== 'string');
  if (missing) throw new DestinationProblem(`${missing} is required for a ${type} endpoint`, missing);
  if (type === 'nats') {
    const subject = names.subject!;
    if (subject.length > MAX_NATS_SUBJECT_LENGTH || !NATS_SUBJECT.test(subject))
      throw new DestinationProblem(
        'subject must be dot-separated tokens without spaces or wildcards (* and >), at most 255 characters, such as community.events',
        'subject',
      );
    return { subject };
  }
  const exchange = names.exchange!;
  const routingKey = names.routingKey!;
  if (Buffer.byteLength(exchange) > MAX_AMQP_NAME_BYTES || !AMQP_EXCHANGE.test(exchange))
    throw new DestinationProblem(
      'exchange must be at most 255 letters, digits, hyphens, underscores, periods or colons ("" is the default exchange)',
      'exchange',
    );
  if (Buffer.byteLength(routingKey) > MAX_AMQP_NAME_BYTES)
    throw new DestinationProblem('routingKey must be at most 255 bytes', 'routingKey');
  return { exchange, routingKey };
}

/** How reads show a credential: as custom header values are masked ("…" and its last 4 characters). */
export function maskedCredentialsUrl(plain: string, credentials: BrokerCredentials | null): string {
  if (!credentials) return plain;
  const at = plain.indexOf('//') + 2;
  // a NATS token travels as the user name alone: then that is the secret
  const userinfo =
    credentials.password === ''
      ? maskHeaderValue(credentials.username)
      : `${encodeURIComponent(credentials.username)}:${maskHeaderValue(credentials.password)}`;
  return `${plain.slice(0, at)}${userinfo}@${plain.slice(at)}`;
}

/**
 * The credentials a PATCH means: a url sent back as a read showed it (the secret part masked) keeps
 * the stored ones; anything else is taken as sent.
 */
export function keepMaskedCredentials(
  sent: BrokerCredentials | null,
  stored: BrokerCredentials | null,
): BrokerCredentials | null {
  if (!sent || !stored) return sent;
  if (stored.password === '')
    return sent.password === '' && sent.username === maskHeaderValue(stored.username) ? stored : sent;
  return sent.username === stored.username && sent.password === maskHeaderValue(stored.password)
    ? stored
    : sent;
}

export function sealCredentials(
  ring: SecretKeyRing,
  credentials: BrokerCredentials | null,
): SealedText | null {
  return credentials ? sealText(ring, JSON.stringify(credentials)) : null;
}

/** The credentials in clear; throws when their key left the ring. */
export function openCredentials(ring: SecretKeyRing, sealed: SealedText | null): BrokerCredentials | null {
  return sealed ? (JSON.parse(openText(ring, sealed)) as BrokerCredentials) : null;
}

/** The broker's own url with its credentials back in, for the client library's connect. */
export function withCredentials(plain: string, credentials: BrokerCredentials | null): URL {
  const url = new URL(plain);
  if (credentials) {
    url.username = encodeURIComponent(credentials.username);
    url.password = encodeURIComponent(credentials.password);
  }
  return url;
}
