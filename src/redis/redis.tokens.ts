/** Injection token of the shared ioredis connection (its own file, so providers of src/redis can import it). */
export const REDIS = Symbol('REDIS');
