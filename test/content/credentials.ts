import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Plan, Role } from '../../src/generated/prisma/enums';
import { PrismaService } from '../../src/prisma/prisma.service';
import { createApiKey, memberWithToken } from '../utils/factories';
import type { CallOptions } from '../utils/http';

/** Every /api/sdk route here takes both kinds of credential; each test runs once per kind. */
export const CREDENTIAL_KINDS = ['jwt', 'apiKey'] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

export interface Caller {
  userId: string;
  communityId: string;
  /** the call options that authenticate as this member with the chosen kind */
  auth: Pick<CallOptions, 'token' | 'apiKey'>;
}

/** A member of `role` (in a new community unless communityId is given), calling with `kind`. */
export async function memberCaller(
  app: NestFastifyApplication,
  kind: CredentialKind,
  options: { plan?: Plan; role?: Role; communityId?: string } = {},
): Promise<Caller> {
  const { community, user, token } = await memberWithToken(app, options);
  if (kind === 'jwt') return { userId: user.id, communityId: community.id, auth: { token } };
  const { key } = await createApiKey(app, community.id, user.id);
  return { userId: user.id, communityId: community.id, auth: { apiKey: key } };
}

/** The outbox rows of one community and event type, oldest first. */
export function outboxOf(app: NestFastifyApplication, communityId: string, eventType: string) {
  return app.get(PrismaService).outboxEvent.findMany({
    where: { communityId, eventType },
    orderBy: { id: 'asc' },
  });
}
