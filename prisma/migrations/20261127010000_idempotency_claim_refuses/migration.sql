-- The claim refuses instead of answering (docs/idempotency.md#how-it-holds-across-instances-and-crashes).
-- The handler's statements are sent behind the claim without waiting for it, in the same round trip.
-- When the key is taken, the claim raises, so the transaction is aborted before they run and every one
-- of them fails: nothing the handler sends can write. The request then reads the kept answer, if any,
-- after its ROLLBACK. The SQLSTATEs are the service's own (class IK, not one PostgreSQL uses):
--   IK409  the key's lock is held by a request still running
--   IK200  an unexpired answer is kept under the key
DROP FUNCTION idempotency_claim(text, bigint);

CREATE FUNCTION idempotency_claim(p_id text, p_lock_key bigint) RETURNS void LANGUAGE plpgsql VOLATILE
-- Planned while the table's statistics say it is empty, the lookup would be a sequential scan kept for
-- the connection's life (bench/README.md#idempotent-writes): it is one probe of the primary key.
SET enable_seqscan = off
AS $$
BEGIN
  IF NOT pg_try_advisory_xact_lock(p_lock_key) THEN
    RAISE EXCEPTION USING ERRCODE = 'IK409', MESSAGE = 'the Idempotency-Key is in use by a running request';
  END IF;
  -- a statement of its own, with a snapshot taken after the lock: it sees an answer the lock's previous
  -- holder committed
  PERFORM 1 FROM idempotency_keys k WHERE k.id = p_id AND k.expires_at > now();
  IF FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'IK200', MESSAGE = 'an answer is kept under the Idempotency-Key';
  END IF;
  PERFORM set_config('app.counters_at_commit', 'on', true);
END $$;
