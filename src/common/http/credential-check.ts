import type { FastifyRequest } from 'fastify';

/**
 * Whether a request carries valid credentials, for the exception filter's answer to an unmatched path
 * (docs/product-decisions.md#8-limits-and-unmatched-paths). Declared here so `common` depends on no feature;
 * the auth module provides it.
 */
export interface CredentialCheck {
  hasValidCredentials(request: FastifyRequest): Promise<boolean>;
}

export const CREDENTIAL_CHECK = Symbol('CREDENTIAL_CHECK');
