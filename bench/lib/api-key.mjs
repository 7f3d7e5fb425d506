// Inserts an API key row for a benchmark, using the service's own key format and default scopes
// from the build (benchmarks run against `npm run build` output anyway).
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { generateApiKey } = require('../../dist/modules/auth/api-key-format.js');
const { DEFAULT_API_KEY_SCOPES } = require('../../dist/common/access/permissions.js');

/** A fresh key (only its hash is stored, so each run makes its own); returns the whole key. */
export async function insertApiKey(db, communityId, ownerId) {
  const { key, keyId, secretHash } = generateApiKey();
  await db.query(
    `INSERT INTO api_keys (id, community_id, key_id, secret_hash, name, scopes, created_by_id)
     VALUES ($1, $2, $3, $4, 'bench', $5, $6)`,
    [randomUUID(), communityId, keyId, secretHash, [...DEFAULT_API_KEY_SCOPES], ownerId],
  );
  return key;
}
