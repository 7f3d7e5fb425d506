import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type { Agent, Dispatcher } from 'undici';
import { AppConfig } from '../../../../config/app-config';
import { WebhookSecretsService } from '../secrets/webhook-secrets.service';
import { CustomHeaders, openHeaders, SealedHeaders } from '../secrets/endpoint-headers';
import { SecretKeyRing } from '../../../../common/crypto/secret-cipher';
import { createDeliveryAgent, DeliveryAgentOptions, httpClient } from './delivery-agent';
import { WEBHOOK_USER_AGENT } from './service-version';
import { signatureHeader } from './sign';
import { checkTargetUrlShape, ResolveAll, UnsafeTargetError } from './url-safety';
import { longestSendMs } from '../delivery-settings';

/** DI token of the resolver used for target addresses (tests provide one that answers what they need). */
export const WEBHOOK_DNS_LOOKUP = Symbol('WEBHOOK_DNS_LOOKUP');

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
}

/** The longest a connect may take, whatever the send's timeout. */
const MAX_CONNECT_MS = 10_000;

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

function describe(err: unknown, timeoutMs: number, connectTimeoutMs: number): string {
  const e = err as {
    name?: string;
    code?: string;
    message?: string;
    cause?: { code?: string; message?: string };
  };
  // the connect has a limit of its own, which may be shorter than the send's
  if (e?.cause?.code === 'UND_ERR_CONNECT_TIMEOUT' || e?.code === 'UND_ERR_CONNECT_TIMEOUT')
    return `timeout after ${Math.min(timeoutMs, connectTimeoutMs)} ms (connect)`;
  if (e?.name === 'TimeoutError' || e?.code?.endsWith('_TIMEOUT')) {
    return `timeout after ${timeoutMs} ms`;
  }
  if (e?.code === 'EBLOCKEDADDRESS' || e?.cause?.code === 'EBLOCKEDADDRESS')
    return e.message ?? e.cause?.message ?? '';
  if (e?.code === 'ECONNREFUSED') return 'connection refused';
  if (e?.code === 'ENOTFOUND') return `host not found (${e.message})`;
  return e?.message ? `${e.code ? `${e.code}: ` : ''}${e.message}` : 'delivery failed';
}

/**
 * Sends one signed delivery attempt (Standard Webhooks) and reports what happened. It never throws
 * for anything the target does: every outcome is a SendResult for the delivery log.
 */
@Injectable()
export class WebhookSender implements OnModuleDestroy {
  /** made on the first send (see httpClient) */
  private agent?: Agent;
  private readonly agentOptions: DeliveryAgentOptions;
  private readonly allowInsecure: boolean;
  private readonly timeoutMs: number;
  private readonly ring: SecretKeyRing;
  private readonly opened = new Map<string, CustomHeaders>();

  constructor(
    @Inject(WebhookSecretsService) private readonly secrets: LiveSecretsSource,
    config: AppConfig,
    @Inject(WEBHOOK_DNS_LOOKUP) resolve: ResolveAll,
  ) {
    this.allowInsecure = config.WEBHOOK_ALLOW_INSECURE_TARGETS;
    this.timeoutMs = config.webhookTimeoutMs;
    this.ring = new SecretKeyRing(config.webhookEncryptionKeys);
    this.agentOptions = {
      resolve,
      guardAddresses: !this.allowInsecure,
      // one agent serves every endpoint: its connect limit fits the longest send, each request's own
      // timeout (below) ends a shorter one
      connectTimeoutMs: Math.min(longestSendMs(config), MAX_CONNECT_MS),
      connectionsPerOrigin: Math.max(128, config.WORKER_CONCURRENCY),
    };
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
    let url: URL;
    try {
      // IP literals never reach the connect-time lookup, so their address is checked here
      url = checkTargetUrlShape(input.url, this.allowInsecure);
    } catch (err) {
      return fail(err instanceof UnsafeTargetError ? err.message : 'invalid target url');
    }
    const secrets = await this.secrets.liveSecrets(input.communityId, input.endpointId);
    if (secrets.length === 0) return fail('endpoint has no live signing secret');
    let custom: CustomHeaders;
    try {
      custom = this.customHeaders(input.customHeaders);
    } catch {
      // the ring lost the key that sealed them: the log says so, the values never appear
      return fail(
        'custom headers could not be decrypted: their encryption key is not in WEBHOOK_SECRET_ENCRYPTION_KEY',
      );
    }
    const timestamp = Math.floor((input.timestamp ?? new Date()).getTime() / 1000);
    try {
      const headers: Record<string, string> = {
        // first, so the platform's own headers win (their names are refused for custom ones anyway)
        ...custom,
        'content-type': 'application/json',
        'user-agent': WEBHOOK_USER_AGENT,
        'webhook-id': input.messageId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(secrets, input.messageId, timestamp, input.body),
      };
      // the receiver may continue the trace (docs/api.md#webhooks); nothing is sent with tracing off
      if (input.traceparent !== undefined) headers.traceparent = input.traceparent;
      this.agent ??= createDeliveryAgent(this.agentOptions);
      const response = await httpClient().request(url, {
        method: 'POST',
        dispatcher: this.agent,
        body: input.body,
        headers,
        signal: AbortSignal.timeout(timeoutMs),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
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
      return fail(describe(err, timeoutMs, this.agentOptions.connectTimeoutMs));
    }
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

  async onModuleDestroy(): Promise<void> {
    await this.agent?.destroy();
  }
}
