import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import type { Agent, Dispatcher, Pool } from 'undici';
import { SecretKeyRing } from '../../../../common/crypto/secret-cipher';
import { AppConfig } from '../../../../config/app-config';
import { closeRedisClient, createRedisClient, type RedisClient } from '../../../../redis/redis-client';
import { httpClient } from '../delivery/delivery-agent';
import { WEBHOOK_DNS_LOOKUP } from '../delivery/dns-lookup';
import { describeSendError } from '../delivery/send-errors';
import { checkTargetUrlShape, type ResolveAll, UnsafeTargetError } from '../delivery/url-safety';
import { longestSendMs } from '../delivery-settings';
import { type OAuthClient, oauthClient, type StoredAuth } from './endpoint-auth';
import { type StoredTls, tlsMaterial } from './endpoint-tls';
import { type EgressProxy, parseEgressProxy } from './egress-proxy';
import { type EndpointTransport, EndpointTransportStore } from './endpoint-transport.store';
import { type IssuedToken, OAuthTokens, TokenRequestError } from './oauth-tokens';
import { createProxyPool, createTransportAgent, type TransportAgentOptions } from './transport-agents';

export type { EndpointTransport } from './endpoint-transport.store';

/** What a send goes out with: the pool to send through, and the OAuth client when the endpoint has one. */
export interface PreparedTransport {
  dispatcher: Dispatcher;
  oauth: { key: string; client: OAuthClient } | null;
}

/** The transport could not be prepared; the message is the attempt's error, never a secret. */
export class TransportSetupError extends Error {}

/** The longest a connect may take, whatever the send's timeout. */
const MAX_CONNECT_MS = 10_000;
/** Endpoints with a client certificate whose pools are kept at once (least recently used goes first). */
const MAX_TLS_AGENTS = 1_000;
/** Endpoints whose OAuth client is kept opened at once (the oldest goes first). */
const MAX_OAUTH_CLIENTS = 10_000;
/** The most of a token endpoint's answer that is read. */
const MAX_TOKEN_ANSWER_BYTES = 64 * 1024;

/**
 * How deliveries, tests and token requests leave the platform (docs/api.md#receivers-behind-enterprise-doors):
 * straight out or through WEBHOOK_EGRESS_PROXY, with the endpoint's client certificate, and with an
 * OAuth 2.0 token. Every connect keeps the target-URL rules (transport-agents.ts). Keeps one pool for the
 * endpoints without a certificate and one per endpoint with one, each made on first use.
 */
@Injectable()
export class HttpTransport implements OnModuleDestroy {
  private readonly agentOptions: Omit<TransportAgentOptions, 'proxy'>;
  private readonly proxy: EgressProxy | null;
  private readonly ring: SecretKeyRing;
  private readonly allowInsecure: boolean;
  private proxyPool?: Pool;
  private sharedAgent?: Agent;
  /** by endpoint id: the pool made for the version of its settings */
  private readonly tlsAgents = new Map<string, { version: number; agent: Agent }>();
  /** by endpoint id: its OAuth client opened (the secret decrypted once per version, not per delivery) */
  private readonly oauthClients = new Map<string, { version: number; client: OAuthClient }>();
  /** by endpoint id: its settings as last read, and their version */
  private readonly settings = new Map<string, Promise<EndpointTransport>>();
  private redis?: RedisClient;
  readonly tokens: OAuthTokens;

  constructor(
    config: AppConfig,
    @Inject(WEBHOOK_DNS_LOOKUP) resolve: ResolveAll,
    private readonly endpoints: EndpointTransportStore,
  ) {
    this.allowInsecure = config.WEBHOOK_ALLOW_INSECURE_TARGETS;
    this.proxy = parseEgressProxy(config.WEBHOOK_EGRESS_PROXY);
    this.ring = new SecretKeyRing(config.webhookEncryptionKeys);
    this.agentOptions = {
      resolve,
      guardAddresses: !this.allowInsecure,
      // one pool serves many endpoints: its connect limit fits the longest send, each request's own
      // timeout ends a shorter one
      connectTimeoutMs: Math.min(longestSendMs(config), MAX_CONNECT_MS),
      connectionsPerOrigin: Math.max(128, config.WORKER_CONCURRENCY),
    };
    this.tokens = new OAuthTokens(
      () => (this.redis ??= createRedisClient(config, 'shared')),
      this.ring,
      (client, timeoutMs) => this.requestToken(client, timeoutMs),
    );
  }

  get connectTimeoutMs(): number {
    return this.agentOptions.connectTimeoutMs;
  }

  /**
   * An endpoint's settings at `version` or newer (the claim's `transport_version`): read once per
   * version, then kept. Version 0 is an endpoint that never had any.
   */
  async settingsOf(communityId: string, endpointId: string, version: number): Promise<EndpointTransport> {
    if (version === 0) return { version: 0, tls: null, auth: null, destination: null };
    const held = this.settings.get(endpointId);
    if (held) {
      const settings = await held.catch(() => null);
      if (settings && settings.version >= version) return settings;
    }
    const read = this.endpoints
      .transportOf(communityId, endpointId)
      .then((row): EndpointTransport => row ?? { version, tls: null, auth: null, destination: null });
    this.settings.set(endpointId, read);
    read.catch(() => {
      if (this.settings.get(endpointId) === read) this.settings.delete(endpointId);
    });
    return read;
  }

  /** The pool and OAuth client of one send; throws TransportSetupError when a sealed value will not open. */
  prepare(endpointId: string, settings: EndpointTransport): PreparedTransport {
    const { tls, auth, version } = settings;
    let oauth: PreparedTransport['oauth'] = null;
    try {
      if (auth)
        oauth = { key: `${endpointId}:${version}`, client: this.oauthClientOf(endpointId, version, auth) };
      return { dispatcher: tls ? this.tlsAgent(endpointId, version, tls) : this.shared(), oauth };
    } catch {
      throw new TransportSetupError(
        "the endpoint's client key or OAuth client secret could not be decrypted: its encryption key is not in WEBHOOK_SECRET_ENCRYPTION_KEY",
      );
    }
  }

  private oauthClientOf(endpointId: string, version: number, auth: StoredAuth): OAuthClient {
    const held = this.oauthClients.get(endpointId);
    if (held && held.version === version) return held.client;
    const client = oauthClient(this.ring, auth);
    this.oauthClients.delete(endpointId);
    if (this.oauthClients.size >= MAX_OAUTH_CLIENTS)
      this.oauthClients.delete(this.oauthClients.keys().next().value as string);
    this.oauthClients.set(endpointId, { version, client });
    return client;
  }

  /** The pool of every endpoint without a client certificate, and of token requests. */
  shared(): Agent {
    return (this.sharedAgent ??= createTransportAgent(this.withProxy(), null));
  }

  private tlsAgent(endpointId: string, version: number, tls: StoredTls): Agent {
    const held = this.tlsAgents.get(endpointId);
    if (held && held.version === version) {
      // most recently used last
      this.tlsAgents.delete(endpointId);
      this.tlsAgents.set(endpointId, held);
      return held.agent;
    }
    const agent = createTransportAgent(this.withProxy(), tlsMaterial(this.ring, tls));
    if (held) void held.agent.close().catch(() => undefined);
    this.tlsAgents.delete(endpointId);
    if (this.tlsAgents.size >= MAX_TLS_AGENTS) {
      const [oldest, entry] = this.tlsAgents.entries().next().value as [string, { agent: Agent }];
      this.tlsAgents.delete(oldest);
      void entry.agent.close().catch(() => undefined);
    }
    this.tlsAgents.set(endpointId, { version, agent });
    return agent;
  }

  private withProxy(): TransportAgentOptions {
    if (!this.proxy) return { ...this.agentOptions, proxy: null };
    this.proxyPool ??= createProxyPool(this.proxy, this.agentOptions.connectTimeoutMs);
    return { ...this.agentOptions, proxy: { proxy: this.proxy, pool: this.proxyPool } };
  }

  /**
   * The client-credentials grant (RFC 6749 §4.4) with client_secret_basic, through the same transport
   * and rules as a delivery: no redirect followed, private addresses refused unless insecure targets are allowed.
   */
  private async requestToken(client: OAuthClient, timeoutMs: number): Promise<IssuedToken> {
    let url: URL;
    try {
      url = checkTargetUrlShape(client.tokenUrl, this.allowInsecure);
    } catch (err) {
      throw new TokenRequestError(
        `token request refused: ${err instanceof UnsafeTargetError ? err.message.replace(/^url/, 'tokenUrl') : 'invalid tokenUrl'}`,
      );
    }
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (client.scope) form.set('scope', client.scope);
    if (client.audience) form.set('audience', client.audience);
    const basic = Buffer.from(
      `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`,
    ).toString('base64');
    let status: number;
    let text: string;
    try {
      const response = await httpClient().request(url, {
        method: 'POST',
        dispatcher: this.shared(),
        body: form.toString(),
        headers: {
          authorization: `Basic ${basic}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        signal: AbortSignal.timeout(timeoutMs),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      status = response.statusCode;
      text = await readLimited(response.body);
    } catch (err) {
      throw new TokenRequestError(
        `token request failed: ${describeSendError(err, timeoutMs, this.agentOptions.connectTimeoutMs)}`,
      );
    }
    if (status >= 300 && status < 400)
      throw new TokenRequestError(`token endpoint answered HTTP ${status} (redirects are not followed)`);
    if (status < 200 || status >= 300) throw new TokenRequestError(`token endpoint answered HTTP ${status}`);
    let answer: { access_token?: unknown; token_type?: unknown; expires_in?: unknown };
    try {
      answer = JSON.parse(text) as typeof answer;
    } catch {
      throw new TokenRequestError('token endpoint answered something other than JSON');
    }
    if (typeof answer?.access_token !== 'string' || answer.access_token === '')
      throw new TokenRequestError('token endpoint answered without an access_token');
    if (typeof answer.token_type === 'string' && answer.token_type.toLowerCase() !== 'bearer')
      throw new TokenRequestError(`token endpoint answered token_type ${answer.token_type}, not Bearer`);
    const seconds = Number(answer.expires_in);
    return {
      token: answer.access_token,
      lifetimeMs:
        answer.expires_in !== undefined && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : null,
    };
  }

  async onModuleDestroy(): Promise<void> {
    const agents = [this.sharedAgent, ...[...this.tlsAgents.values()].map((held) => held.agent)];
    this.tlsAgents.clear();
    this.oauthClients.clear();
    await Promise.all(agents.map((agent) => agent?.destroy().catch(() => undefined)));
    await this.proxyPool?.destroy().catch(() => undefined);
    if (this.redis) await closeRedisClient(this.redis);
  }
}

async function readLimited(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= MAX_TOKEN_ANSWER_BYTES) break;
  }
  return Buffer.concat(chunks).toString('utf8');
}
