// Deletes the Redis keys of one run under its REDIS_KEY_PREFIX: the service's own keys (`prefix:…`) and
// its queue's, whose prefix is a hash tag (`{prefix}:…`, src/redis/redis-client.ts), with those of the
// prefixes under it (`{prefix:name}:…`, a test file's isolated database). Used by the root test suite's
// teardown, the delivery benches, the clients' suites against the service and the portal's browser test.
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS, loaded by TypeScript and ES modules alike */
'use strict';

const Redis = require('ioredis');

async function deleteRunKeys(redisUrl, prefix) {
  const redis = new Redis(redisUrl);
  try {
    // `{prefix}:…` and `{prefix:name}:…` in one pattern: each pattern is a scan of the whole keyspace
    for (const pattern of [`${prefix}:*`, `{${prefix}[}:]*`]) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        if (keys.length > 0) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    }
  } finally {
    await redis.quit();
  }
}

module.exports = { deleteRunKeys };
