import { Inject, Injectable } from '@nestjs/common';
import { Errors } from '../../common/errors/app-error';
import { SecretKeyRing } from '../../common/crypto/secret-cipher';
import { AppConfig } from '../../config/app-config';
import { WEBHOOK_DNS_LOOKUP } from './core/delivery/dns-lookup';
import { assertSafeTargetUrl, type ResolveAll, UnsafeTargetError } from './core/delivery/url-safety';
import { type AuthView, authView, sealAuth, type StoredAuth } from './core/http-transport/endpoint-auth';
import { sealTls, type StoredTls, TlsProblem, type TlsView } from './core/http-transport/endpoint-tls';
import type { TransportWrite } from './core/endpoint-columns';
import type { CustomHeaders } from './core/secrets/endpoint-headers';
import type { OAuthInputDto, TlsInputDto } from './dto/endpoint-transport.fields';

/** What a create or PATCH sends of the transport fields (undefined: not sent; null: removed). */
export interface TransportFields {
  tls?: TlsInputDto | null;
  auth?: OAuthInputDto | null;
}

/** The stored transport fields of an endpoint, as the store reads them. */
export interface StoredTransportFields {
  tls: unknown;
  auth: unknown;
}

/**
 * The rules of an endpoint's `tls` and `auth` (docs/api.md#receivers-behind-enterprise-doors): checked and
 * sealed on create and PATCH, shown without the key and with the client secret masked on reads.
 */
@Injectable()
export class EndpointTransportFields {
  private readonly ring: SecretKeyRing;

  constructor(
    private readonly config: AppConfig,
    @Inject(WEBHOOK_DNS_LOOKUP) private readonly lookup: ResolveAll,
  ) {
    this.ring = new SecretKeyRing(config.webhookEncryptionKeys);
  }

  /** The token URL obeys the target-URL rules (400 naming auth.tokenUrl); the token endpoint is not contacted. */
  async checkTokenUrl(fields: TransportFields): Promise<void> {
    if (!fields.auth) return;
    try {
      await assertSafeTargetUrl(fields.auth.tokenUrl, {
        allowInsecure: this.config.WEBHOOK_ALLOW_INSECURE_TARGETS,
        lookup: this.lookup,
      });
    } catch (err) {
      if (err instanceof UnsafeTargetError)
        throw Errors.badRequest(`auth.${err.message.replace(/^url/, 'tokenUrl')}`, 'auth.tokenUrl');
      throw err;
    }
  }

  /**
   * The sealed values to store, or 400: a bad `tls` (naming `tls`), `tls` on an http url, a custom
   * `authorization` header beside `auth`. `target` is the endpoint as it will be (url, headers), `current`
   * what is stored (a PATCH), so a change of either side is checked against the other.
   */
  seal(
    fields: TransportFields,
    target: { url: string; headers: CustomHeaders },
    current: StoredTransportFields | null,
  ): TransportWrite {
    const tls = fields.tls === undefined ? (current?.tls ?? null) : fields.tls;
    if (tls !== null && new URL(target.url).protocol !== 'https:')
      throw Errors.badRequest(
        'tls needs an https url: a client certificate is presented only over TLS',
        'tls',
      );
    const auth = fields.auth === undefined ? (current?.auth ?? null) : fields.auth;
    const named = Object.keys(target.headers).find((name) => name.toLowerCase() === 'authorization');
    if (auth !== null && named !== undefined)
      throw Errors.badRequest(
        `headers may not set ${named} while auth is set: the platform sends the OAuth token in it`,
        'headers',
      );
    const write: TransportWrite = {};
    if (fields.tls !== undefined) {
      try {
        write.tls = fields.tls === null ? null : sealTls(this.ring, fields.tls);
      } catch (err) {
        if (err instanceof TlsProblem) throw Errors.badRequest(err.message, 'tls');
        throw err;
      }
    }
    if (fields.auth !== undefined)
      write.auth =
        fields.auth === null
          ? null
          : sealAuth(this.ring, fields.auth, (current?.auth ?? null) as StoredAuth | null);
    return write;
  }

  /** The fields as every read shows them. */
  view(stored: StoredTransportFields): { tls: TlsView | null; auth: AuthView | null } {
    return {
      tls: stored.tls ? (stored.tls as StoredTls).view : null,
      auth: stored.auth ? authView(this.ring, stored.auth as StoredAuth) : null,
    };
  }
}
