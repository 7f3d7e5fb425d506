import { Inject, Injectable } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { AppConfig } from '../../../../config/app-config';
import { WebhookSecretsService } from '../secrets/webhook-secrets.service';
import { CustomHeaders, openHeaders, SealedHeaders } from '../secrets/endpoint-headers';
import { SecretKeyRing } from '../../../../common/crypto/secret-cipher';
import { httpClient } from './delivery-agent';
import { WEBHOOK_USER_AGENT } from './service-version';
import { signatureHeader } from './sign';
import { checkTargetUrlShape, UnsafeTargetError } from './url-safety';
import { describeSendError } from './send-errors';
import {
  type EndpointTransport,
  HttpTransport,
  type PreparedTransport,
  TransportSetupError,
} from '../http-transport/http-transport.service';
import { TokenRequestError } from '../http-transport/oauth-tokens';
import { BrokerTransports } from '../broker-transport/broker-transports.service';

export { WEBHOOK_DNS_LOOKUP } from './dns-lookup';

/** What the receiver keeps of an answer: the first 4 KiB (docs/product-decisions.md#5-webhooks). */
export const MAX_RESPONSE_BODY_BYTES = 4096;

export interface SendInput {
  communityId: string;
  endpointId: string;
  url: string;
  messageId: string;
  eventType: string;
  /** the exact JSON text that is signed and sent */
  body: string;
  timestamp?: Date;
  /** the endpoint's custom headers as stored (sealed); opened here, sent verbatim */
  customHeaders?: SealedHeaders | null;
  /** the attempt span's trace context, sent as `traceparent` (tracing on and the trace sampled only) */
  traceparent?: string;
  /** the endpoint's own timeout (its `timeoutMs`); absent: WEBHOOK_TIMEOUT */
  timeoutMs?: number;
  /**
   * the endpoint's client certificate and OAuth client: as read (the test route), or the version a
   * claim read (`transport_version`), which the transport loads once; absent: neither
   */
  transport?: EndpointTransport | { version: number };
}

/** Opened header sets kept by their ciphertext, so a busy endpoint's are not decrypted per attempt. */
const OPENED_HEADERS_CACHE = 1_000;

export interface SendResult {
  ok: boolean;
  status: number | null;
  responseBody: string | null;
  durationMs: number;
  error: string | null;
  /** Retry-After of a 429/503 answer, in ms from now */
  retryAfterMs: number | null;
  /** the target answered 410 Gone: it wants no more deliveries */
  gone: boolean;
}

/** Where the signer gets the secrets (WebhookSecretsService; a unit spec may hand in fixed ones). */
export type LiveSecretsSource = Pick<WebhookSecretsService, 'liveSecrets'>;

/** Retry-After as seconds or an HTTP date; anything else is ignored. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return null;
  if (/^\s*\d+\s*$/.test(text)) return Number(text.trim()) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

async function readHead(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  // leaving the loop early destroys the stream: a huge answer is never downloaded
  for await (const chunk of body as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= MAX_RESPONSE_BODY_BYTES) break;
  }
  // PostgreSQL text cannot hold NUL; a receiver's binary answer must not break the log
  return Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BODY_BYTES).toString('utf8').replaceAll('\0', '');
}

/**
 * Sends one signed delivery attempt (Standard Webhooks) and reports what happened. It never throws
 * for anything the target does: every outcome is a SendResult for the delivery log.
 */
@Injectable()
export class WebhookSender {
  private readonly allowInsecure: boolean;
  private readonly timeoutMs: number;
  private readonly ring: SecretKeyRing;
  private readonly opened = new Map<string, CustomHeaders>();

  constructor(
    @Inject(WebhookSecretsService) private readonly secrets: LiveSecretsSource,
    config: AppConfig,
    private readonly transport: HttpTransport,
    private readonly brokers: BrokerTransports,
  ) {
    this.allowInsecure = config.WEBHOOK_ALLOW_INSECURE_TARGETS;
    this.timeoutMs = config.webhookTimeoutMs;
    this.ring = new SecretKeyRing(config.webhookEncryptionKeys);
  }

  async send(input: SendInput): Promise<SendResult> {
    const started = performance.now();
    const timeoutMs = input.timeoutMs ?? this.timeoutMs;
    const fail = (error: string, extra: Partial<SendResult> = {}): SendResult => ({
      ok: false,
      status: null,
      responseBody: null,
      durationMs: Math.round(performance.now() - started),
      error,
      retryAfterMs: null,
      gone: false,
      ...extra,
    });
    // a broker endpoint publishes instead (docs/architecture.md#broker-destinations): its settings say so
    const settings = await this.settingsOf(input);
    if (settings.destination) return this.publish(input, settings, timeoutMs, fail);
    let url: URL;
    try {
      // IP literals never reach the connect-time lookup, so their address is checked here
      url = checkTargetUrlShape(input.url, this.allowInsecure);
    } catch (err) {
      return fail(err instanceof UnsafeTargetError ? err.message : 'invalid target url');
    }
    const signed = await this.signedHeaders(input);
    if (typeof signed === 'string') return fail(signed);
    let prepared: PreparedTransport;
    let token: string | null = null;
    try {
      prepared = this.transport.prepare(input.endpointId, settings);
      // an OAuth endpoint's token, kept for every worker until shortly before it expires (oauth-tokens.ts)
      if (prepared.oauth)
        token = await this.transport.tokens.token(prepared.oauth.key, prepared.oauth.client, timeoutMs);
    } catch (err) {
      if (err instanceof TransportSetupError || err instanceof TokenRequestError) return fail(err.message);
      throw err;
    }
    try {
      const headers: Record<string, string> = { ...signed, 'content-type': 'application/json' };
      const signal = AbortSignal.timeout(timeoutMs);
      const post = () =>
        httpClient().request(url, {
          method: 'POST',
          dispatcher: prepared.dispatcher,
          body: input.body,
          headers: token === null ? headers : { ...headers, authorization: `Bearer ${token}` },
          signal,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
      let response = await post();
      if (response.statusCode === 401 && prepared.oauth && token !== null) {
        // the receiver refused the token: one new token, one more request, in the same attempt
        await response.body.dump().catch(() => undefined);
        try {
          token = await this.transport.tokens.renew(
            prepared.oauth.key,
            prepared.oauth.client,
            token,
            timeoutMs,
          );
        } catch (err) {
          if (err instanceof TokenRequestError)
            return fail(`target answered HTTP 401; ${err.message}`, { status: 401 });
          throw err;
        }
        response = await post();
      }
      const status = response.statusCode;
      const responseBody = await readHead(response.body).catch(() => '');
      const durationMs = Math.round(performance.now() - started);
      const retryAfterMs =
        status === 429 || status === 503 ? parseRetryAfter(response.headers['retry-after']) : null;
      const ok = status >= 200 && status < 300;
      const error = ok
        ? null
        : status >= 300 && status < 400
          ? 'redirect refused'
          : `target answered HTTP ${status}`;
      return { ok, status, responseBody, durationMs, error, retryAfterMs, gone: status === 410 };
    } catch (err) {
      return fail(describeSendError(err, timeoutMs, this.transport.connectTimeoutMs));
    }
  }

  /** The endpoint's client certificate, OAuth client and broker destination, as given or loaded once per version. */
  private async settingsOf(input: SendInput): Promise<EndpointTransport> {
    const given = input.transport;
    return given === undefined
      ? { version: 0, tls: null, auth: null, destination: null }
      : 'tls' in given
        ? given
        : await this.transport.settingsOf(input.communityId, input.endpointId, given.version);
  }

  /**
   * A broker endpoint's attempt: the same body, the signature and custom headers as message headers,
   * success = the broker's confirm or the stream's ack (broker-transports.service.ts); responseStatus null.
   */
  private async publish(
    input: SendInput,
    settings: EndpointTransport,
    timeoutMs: number,
    fail: (error: string) => SendResult,
  ): Promise<SendResult> {
    const started = performance.now();
    const headers = await this.signedHeaders(input);
    if (typeof headers === 'string') return fail(headers);
    const outcome = await this.brokers.publish({
      endpointId: input.endpointId,
      version: settings.version,
      url: input.url,
      destination: settings.destination!,
      message: { messageId: input.messageId, eventType: input.eventType, body: input.body, headers },
      timeoutMs,
    });
    const durationMs = Math.round(performance.now() - started);
    return outcome.ok
      ? {
          ok: true,
          status: null,
          responseBody: outcome.ack,
          durationMs,
          error: null,
          retryAfterMs: null,
          gone: false,
        }
      : { ...fail(outcome.error), durationMs };
  }

  /**
   * The headers every transport sends (as HTTP or message headers): the custom ones, then the platform's
   * (which win; their names are refused for custom ones anyway), signed afresh. A string: why there are
   * none (the attempt's error; a value never appears in it).
   */
  private async signedHeaders(input: SendInput): Promise<Record<string, string> | string> {
    const secrets = await this.secrets.liveSecrets(input.communityId, input.endpointId);
    if (secrets.length === 0) return 'endpoint has no live signing secret';
    let custom: CustomHeaders;
    try {
      custom = this.customHeaders(input.customHeaders);
    } catch {
      // the ring lost the key that sealed them: the log says so, the values never appear
      return 'custom headers could not be decrypted: their encryption key is not in WEBHOOK_SECRET_ENCRYPTION_KEY';
    }
    const timestamp = Math.floor((input.timestamp ?? new Date()).getTime() / 1000);
    const headers: Record<string, string> = {
      ...custom,
      'user-agent': WEBHOOK_USER_AGENT,
      'webhook-id': input.messageId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(secrets, input.messageId, timestamp, input.body),
    };
    // the receiver may continue the trace (docs/api.md#webhooks); nothing is sent with tracing off
    if (input.traceparent !== undefined) headers.traceparent = input.traceparent;
    return headers;
  }

  private customHeaders(sealed: SealedHeaders | null | undefined): CustomHeaders {
    if (!sealed) return {};
    const key = sealed.ciphertext;
    let headers = this.opened.get(key);
    if (!headers) {
      headers = openHeaders(this.ring, sealed);
      if (this.opened.size >= OPENED_HEADERS_CACHE) this.opened.delete(this.opened.keys().next().value!);
      this.opened.set(key, headers);
    }
    return headers;
  }
}
