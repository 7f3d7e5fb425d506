import type { PrismaService, Tx } from '../../prisma/prisma.service';

/** Scopes of `community_counters` kept by the migration's statement-level triggers. */
export type CounterScope = 'tweets' | 'tasks';

/**
 * A list's `total`, read from the counter row the insert/delete triggers keep exact in the same
 * transaction as the change: one primary-key lookup instead of a count(*) over the community's rows.
 * No row yet means nothing was ever inserted.
 */
export async function listTotal(
  db: PrismaService | Tx,
  communityId: string,
  scope: CounterScope,
): Promise<number> {
  const counter = await db.communityCounter.findUnique({
    where: { communityId_scope: { communityId, scope } },
    select: { value: true },
  });
  return counter ? Number(counter.value) : 0;
}
