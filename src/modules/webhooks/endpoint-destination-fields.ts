import { Inject, Injectable } from '@nestjs/common';
import { Errors } from '../../common/errors/app-error';
import { SecretKeyRing } from '../../common/crypto/secret-cipher';
import { AppConfig } from '../../config/app-config';
import { WEBHOOK_DNS_LOOKUP } from './core/delivery/dns-lookup';
import { assertPublicHost, type ResolveAll, UnsafeTargetError } from './core/delivery/url-safety';
import {
  type BrokerNames,
  type BrokerType,
  brokerNames,
  DestinationProblem,
  type EndpointType,
  keepMaskedCredentials,
  maskedCredentialsUrl,
  openCredentials,
  parseBrokerUrl,
  sealCredentials,
  type StoredDestination,
} from './core/broker-transport/broker-destination';

/** What a create or PATCH sends of the destination fields. */
export interface DestinationFields extends BrokerNames {
  type?: EndpointType;
  url?: string;
  tls?: unknown;
  auth?: unknown;
}

/** The destination fields as every read shows them. */
export interface DestinationView {
  type: EndpointType;
  url: string;
  exchange: string | null;
  routingKey: string | null;
  subject: string | null;
}

/** A broker endpoint's url to store in plain and its destination to seal. */
export interface BrokerWrite {
  url: string;
  destination: StoredDestination;
}

/**
 * The rules of an endpoint's `type` and of a broker's `url`, `exchange`, `routingKey` and `subject`
 * (docs/api.md#broker-destinations): checked and sealed on create and PATCH (the credentials in the url go
 * to the sealed `destination`, never to the `url` column), shown with the credentials masked on reads.
 */
@Injectable()
export class EndpointDestinationFields {
  private readonly ring: SecretKeyRing;

  constructor(
    private readonly config: AppConfig,
    @Inject(WEBHOOK_DNS_LOOKUP) private readonly lookup: ResolveAll,
  ) {
    this.ring = new SecretKeyRing(config.webhookEncryptionKeys);
  }

  /** A create's broker fields (null for http, whose url the http rules check), or 400 naming the field. */
  async forCreate(fields: DestinationFields & { url: string }): Promise<BrokerWrite | null> {
    const type = fields.type ?? 'http';
    return this.checked(async () => {
      const names = brokerNames(type, fields);
      if (type === 'http' || names === null) return null;
      this.refuseHttpOnly(type, fields);
      const { plain, credentials } = await this.brokerUrl(type, fields.url);
      return {
        url: plain,
        destination: {
          type,
          ...names,
          credentials: sealCredentials(this.ring, credentials),
        } as StoredDestination,
      };
    });
  }

  /**
   * A PATCH's broker fields against the stored endpoint: null when the endpoint is http (the http rules
   * apply to its url) or when nothing of the destination changes. A `type` other than the stored one is 400.
   */
  async forUpdate(
    fields: DestinationFields,
    current: { type: string; url: string; destination: unknown },
  ): Promise<BrokerWrite | null> {
    const type = current.type as EndpointType;
    return this.checked(async () => {
      if (fields.type !== undefined && fields.type !== type)
        throw new DestinationProblem(
          `type is fixed at create: this endpoint is ${type}; create another endpoint for ${fields.type}`,
          'type',
        );
      if (type === 'http') {
        brokerNames('http', fields);
        return null;
      }
      this.refuseHttpOnly(type, fields);
      const stored = current.destination as StoredDestination;
      if (fields.url === undefined && !Object.values(namesOf(fields)).some((v) => v !== undefined))
        return null;
      const names = brokerNames(type, { ...namesOf(stored), ...definedNames(fields) });
      let url = current.url;
      let credentials = stored.credentials;
      if (fields.url !== undefined) {
        const parsed = await this.brokerUrl(type, fields.url);
        url = parsed.plain;
        const kept = keepMaskedCredentials(parsed.credentials, this.open(stored));
        credentials = sealCredentials(this.ring, kept);
      }
      return { url, destination: { type, ...names, credentials } as StoredDestination };
    });
  }

  /** The fields as every read shows them: the url with its credentials masked. */
  view(row: { type: string; url: string; destination: unknown }): DestinationView {
    const type = row.type as EndpointType;
    const stored = row.destination as StoredDestination | null;
    if (type === 'http' || !stored)
      return { type, url: row.url, exchange: null, routingKey: null, subject: null };
    let credentials = null;
    try {
      credentials = this.open(stored);
    } catch {
      // their key left the ring: the read still shows that there are some
      credentials = stored.credentials ? { username: '', password: '' } : null;
    }
    return {
      type,
      url: maskedCredentialsUrl(row.url, credentials),
      exchange: stored.type === 'rabbitmq' ? stored.exchange : null,
      routingKey: stored.type === 'rabbitmq' ? stored.routingKey : null,
      subject: stored.type === 'nats' ? stored.subject : null,
    };
  }

  private open(stored: StoredDestination) {
    return openCredentials(this.ring, stored.credentials);
  }

  /** Client certificates and OAuth tokens are HTTP's: a broker endpoint refuses them. */
  private refuseHttpOnly(type: BrokerType, fields: DestinationFields): void {
    for (const field of ['tls', 'auth'] as const)
      if (fields[field] !== undefined && fields[field] !== null)
        throw new DestinationProblem(`${field} applies to http endpoints only, not to ${type}`, field);
  }

  /** The url's shape, then its host's addresses (never contacted), as for an http target. */
  private async brokerUrl(type: BrokerType, raw: string) {
    const allowInsecure = this.config.WEBHOOK_ALLOW_INSECURE_TARGETS;
    const parsed = parseBrokerUrl(type, raw, allowInsecure);
    try {
      await assertPublicHost(parsed.url, { allowInsecure, lookup: this.lookup });
    } catch (err) {
      if (err instanceof UnsafeTargetError) throw new DestinationProblem(err.message, 'url');
      throw err;
    }
    return parsed;
  }

  private async checked<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (err instanceof DestinationProblem) throw Errors.badRequest(err.message, err.field);
      throw err;
    }
  }
}

function namesOf(from: BrokerNames | StoredDestination): BrokerNames {
  const names = from as BrokerNames;
  return { exchange: names.exchange, routingKey: names.routingKey, subject: names.subject };
}

/** The names a PATCH sent (null counts as sent: brokerNames refuses it for a required name). */
function definedNames(fields: BrokerNames): BrokerNames {
  return Object.fromEntries(Object.entries(namesOf(fields)).filter(([, v]) => v !== undefined));
}
