import { AppError } from '../../src/common/errors/app-error';
import type { Actor } from '../../src/common/http/request-context';

/**
 * The AppError a rule refuses with, thrown or as a rejection: what the client's error body is made of
 * (status, code, message). Fails the test when the rule lets the call through or throws anything else.
 */
export async function refusalOf(run: () => unknown): Promise<AppError> {
  try {
    await run();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a refusal (an AppError), the call went through');
}

/** A logged-in user as the auth guard hands it to the services (no API key, no default community). */
export function userActor(userId: string, extra: Partial<Actor> = {}): Actor {
  return {
    kind: 'user',
    userId,
    email: `${userId}@example.test`,
    isPlatformAdmin: false,
    defaultCommunityId: null,
    ...extra,
  };
}
