import type { SecretKeyRing } from '../../../../common/crypto/secret-cipher';
import { maskHeaderValue } from '../secrets/endpoint-headers';
import { openText, type SealedText, sealText } from './sealed-text';

/** The one kind of `auth` there is (docs/api.md#oauth-20-client-credentials). */
export const OAUTH2_CLIENT_CREDENTIALS = 'oauth2_client_credentials';

/** What a create or PATCH sends as `auth`. */
export interface AuthInput {
  type: typeof OAUTH2_CLIENT_CREDENTIALS;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scope?: string | null;
  audience?: string | null;
}

/** The `auth` field of a read: the client secret masked as custom header values are. */
export type AuthView = Omit<AuthInput, 'scope' | 'audience'> & {
  scope: string | null;
  audience: string | null;
};

/** The `auth` column: the client secret sealed by the key ring. */
export interface StoredAuth {
  type: typeof OAUTH2_CLIENT_CREDENTIALS;
  tokenUrl: string;
  clientId: string;
  clientSecret: SealedText;
  scope: string | null;
  audience: string | null;
}

/** What the token request needs, the secret in clear. */
export interface OAuthClient {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scope: string | null;
  audience: string | null;
}

/**
 * The stored form of `input`. A PATCH that sends the client secret back exactly as a read masked it
 * keeps the stored secret (`current`), as a masked custom header value does.
 */
export function sealAuth(ring: SecretKeyRing, input: AuthInput, current: StoredAuth | null): StoredAuth {
  const kept =
    current !== null && input.clientSecret === maskHeaderValue(openText(ring, current.clientSecret))
      ? current.clientSecret
      : sealText(ring, input.clientSecret);
  return {
    type: OAUTH2_CLIENT_CREDENTIALS,
    tokenUrl: input.tokenUrl,
    clientId: input.clientId,
    clientSecret: kept,
    scope: input.scope ?? null,
    audience: input.audience ?? null,
  };
}

export function authView(ring: SecretKeyRing, stored: StoredAuth): AuthView {
  const { clientSecret, ...rest } = stored;
  return { ...rest, clientSecret: maskHeaderValue(openText(ring, clientSecret)) };
}

/** The client in clear, for the token request; throws when the secret will not open. */
export function oauthClient(ring: SecretKeyRing, stored: StoredAuth): OAuthClient {
  const { clientSecret, type: _type, ...rest } = stored;
  return { ...rest, clientSecret: openText(ring, clientSecret) };
}
