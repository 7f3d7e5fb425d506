/** Deletes the Redis keys of one run under `prefix` (see redis-run-keys.js). */
export function deleteRunKeys(redisUrl: string, prefix: string): Promise<void>;
