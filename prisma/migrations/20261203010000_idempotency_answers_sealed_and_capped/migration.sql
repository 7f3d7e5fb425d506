-- The answers kept under Idempotency-Keys are sealed by the key ring, and each caller keeps a bounded number
-- of them (docs/idempotency.md#storage).
--
-- Sealed: an answer may carry a secret shown once (a webhook endpoint's signing secret, a new API key, a
-- portal link's token, an embed session's token), and the table kept it readable for IDEMPOTENCY_KEY_TTL.
-- A new answer is stored only as AES-256-GCM under the newest key of WEBHOOK_SECRET_ENCRYPTION_KEY (key_id, iv,
-- ciphertext, auth_tag: the shape of webhook_secrets), response_body NULL. Answers kept before this migration
-- keep their plain body in response_body and are still replayed; secrets:reencrypt seals them in place, and
-- they expire within the TTL anyway (docs/operations.md#idempotency-keys).
--
-- Bounded: a caller (identity and community) keeps at most IDEMPOTENCY_KEYS_PER_CALLER answers, the oldest
-- dropped first. idempotency_callers counts each caller's answers; an answer carries its caller and that
-- count at the time it was kept (caller_seq), so the one the cap passes is found by one probe of an index,
-- however many the caller has. Answers kept before this migration have no caller: they are not counted and
-- leave with the TTL.

ALTER TABLE "idempotency_keys"
    ALTER COLUMN "response_body" DROP NOT NULL,
    ADD COLUMN "key_id" TEXT,
    ADD COLUMN "iv" BYTEA,
    ADD COLUMN "ciphertext" BYTEA,
    ADD COLUMN "auth_tag" BYTEA,
    ADD COLUMN "caller" TEXT,
    ADD COLUMN "caller_seq" BIGINT;

-- a row holds its body either sealed or (kept before this migration) plain, never both. NOT VALID, then
-- validated under a lock that lets keyed writes go on while the existing rows are checked.
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_body_sealed_or_plain" CHECK (
    CASE WHEN "key_id" IS NULL
         THEN "response_body" IS NOT NULL AND "iv" IS NULL AND "ciphertext" IS NULL AND "auth_tag" IS NULL
         ELSE "response_body" IS NULL AND "iv" IS NOT NULL AND "ciphertext" IS NOT NULL AND "auth_tag" IS NOT NULL
    END) NOT VALID;
ALTER TABLE "idempotency_keys" VALIDATE CONSTRAINT "idempotency_keys_body_sealed_or_plain";

-- partial: the rows kept before this migration have no caller (and none of them is indexed while it is built)
CREATE INDEX "idempotency_keys_caller_caller_seq_idx" ON "idempotency_keys" ("caller", "caller_seq")
    WHERE "caller" IS NOT NULL;

CREATE TABLE "idempotency_callers" (
    "caller" TEXT NOT NULL,
    -- answers the caller has kept so far (the caller_seq of its newest)
    "kept" BIGINT NOT NULL,
    -- the worker forgets a caller whose last answer has expired
    "last_kept_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_callers_pkey" PRIMARY KEY ("caller")
);

-- Keeps a sealed answer under the key, replacing an expired one not yet pruned, counts it to its caller and
-- deletes that caller's answer the count has left p_cap behind (the oldest). A live answer already there raises
-- unique_violation, so the transaction that would commit a second write beside it cannot (and the count is
-- rolled back with it). The caller's row stays locked until the commit, which follows in the same round
-- trip: one caller's keyed writes commit one after the other, as a community's already do on its counters.
DROP FUNCTION idempotency_keep(text, text, integer, text, text, bigint);

CREATE FUNCTION idempotency_keep(
  p_id text,
  p_request_hash text,
  p_status_code integer,
  p_key_id text,
  p_iv bytea,
  p_ciphertext bytea,
  p_auth_tag bytea,
  p_location text,
  p_ttl_ms bigint,
  p_caller text,
  p_cap bigint
) RETURNS void LANGUAGE plpgsql VOLATILE
-- planned once per connection, maybe while the statistics say the table is empty: the deletion past the cap
-- is one probe of the caller's index whatever they say (as idempotency_claim's lookup)
SET enable_seqscan = off
AS $$
DECLARE
  v_seq bigint;
BEGIN
  INSERT INTO idempotency_callers AS c (caller, kept, last_kept_at) VALUES (p_caller, 1, now())
  ON CONFLICT (caller) DO UPDATE SET kept = c.kept + 1, last_kept_at = EXCLUDED.last_kept_at
  RETURNING c.kept INTO v_seq;
  INSERT INTO idempotency_keys AS k
    (id, request_hash, status_code, key_id, iv, ciphertext, auth_tag, location, caller, caller_seq, expires_at)
  VALUES (p_id, p_request_hash, p_status_code, p_key_id, p_iv, p_ciphertext, p_auth_tag, p_location, p_caller,
          v_seq, now() + p_ttl_ms * interval '1 millisecond')
  ON CONFLICT (id) DO UPDATE SET request_hash = EXCLUDED.request_hash, status_code = EXCLUDED.status_code,
    response_body = NULL, key_id = EXCLUDED.key_id, iv = EXCLUDED.iv, ciphertext = EXCLUDED.ciphertext,
    auth_tag = EXCLUDED.auth_tag, location = EXCLUDED.location, caller = EXCLUDED.caller,
    caller_seq = EXCLUDED.caller_seq, created_at = now(), expires_at = EXCLUDED.expires_at
  WHERE k.expires_at <= now();
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'unique_violation',
      MESSAGE = 'an answer is already kept under this Idempotency-Key';
  END IF;
  -- the one answer the cap just passed: a probe of one index entry. Not a range from the caller's oldest:
  -- the entries of the answers deleted since the last VACUUM stay in the index and a range would step over
  -- all of them on every write. Lowering the cap therefore leaves the answers between the old and the new
  -- cap to their TTL.
  IF v_seq > p_cap THEN
    DELETE FROM idempotency_keys WHERE caller = p_caller AND caller_seq = v_seq - p_cap;
  END IF;
END $$;
