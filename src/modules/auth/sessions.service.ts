import { Injectable } from '@nestjs/common';
import { Errors, INVALID_TOKEN_MESSAGE } from '../../common/errors/app-error';
import type { Actor } from '../../common/http/request-context';
import { SessionRevocationsService } from './session-revocations.service';

/** Ending sessions on request: the logout routes' rules (docs/product-decisions.md#2-identities-login-api-keys). */
@Injectable()
export class SessionsService {
  constructor(private readonly revocations: SessionRevocationsService) {}

  /** Ends the caller's own session, whichever kind its token names. */
  async logout(actor: Actor): Promise<void> {
    // The guard accepted a Bearer token (API keys are refused here), so the actor has its session.
    const sessionId = actor.sessionId;
    if (!sessionId) throw Errors.unauthorized(INVALID_TOKEN_MESSAGE);
    if (actor.portalCommunityId !== undefined) await this.revocations.revokePortalSession(sessionId);
    else await this.revocations.revoke(sessionId);
  }

  /** Ends every session of the caller's user; answers how many were live. */
  logoutEverywhere(actor: Actor): Promise<number> {
    if (!actor.sessionId) throw Errors.unauthorized(INVALID_TOKEN_MESSAGE);
    return this.revocations.revokeAllOf(actor.userId);
  }
}
