import { JwtService } from '@nestjs/jwt';
import { randomUUID } from 'node:crypto';
import type { AppConfig } from '../../config/app-config';
import type { MembershipsStore } from '../members/memberships.store';
import type { RefreshTokensStore } from './refresh-tokens.store';
import type { SessionRevocationsService } from './session-revocations.service';
import { TokenService, VERIFIED_TOKENS_KEPT } from './token.service';
import type { UsersStore } from './users.store';

/** Access tokens verified once are remembered until they expire, and only then. */
describe('TokenService.verifyAccessToken', () => {
  const jwt = new JwtService({ secret: 'unit-test-secret-unit-test-secret-0123' });
  const newService = () =>
    new TokenService(
      jwt,
      null as unknown as RefreshTokensStore,
      null as unknown as UsersStore,
      null as unknown as MembershipsStore,
      null as unknown as AppConfig,
      null as unknown as SessionRevocationsService,
    );
  const sign = (expiresIn = 600, payload: Record<string, unknown> = {}) =>
    jwt.sign(
      {
        userId: randomUUID(),
        email: 'a@example.test',
        role: null,
        tenantId: null,
        tenantSchema: 'public',
        sid: randomUUID(),
        typ: 'access',
        ...payload,
      },
      { expiresIn, algorithm: 'HS256', jwtid: randomUUID() },
    );

  afterEach(() => jest.restoreAllMocks());

  it('checks the signature once per token, not once per request', () => {
    const tokens = newService();
    const verify = jest.spyOn(jwt, 'verify');
    const token = sign();
    const first = tokens.verifyAccessToken(token);
    expect(first).toMatchObject({ typ: 'access', tenantSchema: 'public' });
    expect(tokens.verifyAccessToken(token)).toEqual(first);
    expect(verify).toHaveBeenCalledTimes(1);
  });

  it('refuses a remembered token once it has expired', () => {
    const tokens = newService();
    const token = sign(60);
    expect(tokens.verifyAccessToken(token)).not.toBeNull();
    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now + 61_000);
    expect(tokens.verifyAccessToken(token)).toBeNull();
  });

  it('never remembers a refused token: a forged or malformed one is checked every time', () => {
    const tokens = newService();
    const verify = jest.spyOn(jwt, 'verify');
    const forged = sign().replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    const malformed = sign(600, { userId: 'not-a-uuid' });
    for (const token of [forged, forged, malformed, malformed])
      expect(tokens.verifyAccessToken(token)).toBeNull();
    expect(verify).toHaveBeenCalledTimes(4);
  });

  it(`keeps at most ${VERIFIED_TOKENS_KEPT} tokens, dropping the oldest first`, () => {
    const tokens = newService();
    const all = Array.from({ length: VERIFIED_TOKENS_KEPT + 1 }, () => sign());
    for (const token of all) tokens.verifyAccessToken(token);
    const verify = jest.spyOn(jwt, 'verify');
    tokens.verifyAccessToken(all[all.length - 1]);
    tokens.verifyAccessToken(all[1]);
    expect(verify).toHaveBeenCalledTimes(0);
    tokens.verifyAccessToken(all[0]);
    expect(verify).toHaveBeenCalledTimes(1);
  });
});
