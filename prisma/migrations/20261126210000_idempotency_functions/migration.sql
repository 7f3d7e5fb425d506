-- The claim of an Idempotency-Key and the keeping of its answer, as functions
-- (docs/idempotency.md#how-it-holds-across-instances-and-crashes). Sent as statement text, the lookup
-- and the answer's INSERT (its body written out as a literal) were parsed and planned on every keyed
-- write, which cost PostgreSQL more than the write itself (bench/README.md#idempotent-writes);
-- PL/pgSQL plans each statement once per connection. Both stay plain text to call, so they work
-- through PgBouncer in transaction mode, where named prepared statements do not.

-- Takes the key's transaction-scoped lock if it is free and reads the key's unexpired answer in a
-- statement of its own: a VOLATILE function takes a new snapshot for each statement, so the lookup
-- sees an answer the lock's previous holder committed. Sets app.counters_at_commit for the rest of
-- the transaction: its inserts are counted at commit (20261126110000_deferred_row_counters), since
-- the transaction stays open until the answer is kept.
CREATE FUNCTION idempotency_claim(
  p_id text,
  p_lock_key bigint,
  OUT locked boolean,
  OUT stored_request_hash text,
  OUT stored_status_code integer,
  OUT stored_response_body text,
  OUT stored_location text
) LANGUAGE plpgsql VOLATILE
-- The lookup's plan is kept for the connection's life. Planned while the table's statistics say it is
-- empty (a new deployment, or before autovacuum's first ANALYZE), it would be a sequential scan, kept
-- as the table fills: each claim read the whole table and keyed writes fell to half their rate within
-- a bench run (bench/README.md#idempotent-writes). The lookup is one probe of the primary key whatever
-- the statistics say.
SET enable_seqscan = off
AS $$
BEGIN
  locked := pg_try_advisory_xact_lock(p_lock_key);
  PERFORM set_config('app.counters_at_commit', 'on', true);
  SELECT k.request_hash, k.status_code, k.response_body, k.location
    INTO stored_request_hash, stored_status_code, stored_response_body, stored_location
    FROM idempotency_keys k
   WHERE k.id = p_id AND k.expires_at > now();
END $$;

-- Keeps an answer under the key, replacing an expired one not yet pruned. A live answer already there
-- raises unique_violation, so the transaction that would commit a second write beside it cannot.
CREATE FUNCTION idempotency_keep(
  p_id text,
  p_request_hash text,
  p_status_code integer,
  p_response_body text,
  p_location text,
  p_ttl_ms bigint
) RETURNS void LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  INSERT INTO idempotency_keys AS k (id, request_hash, status_code, response_body, location, expires_at)
  VALUES (p_id, p_request_hash, p_status_code, p_response_body, p_location,
          now() + p_ttl_ms * interval '1 millisecond')
  ON CONFLICT (id) DO UPDATE SET request_hash = EXCLUDED.request_hash, status_code = EXCLUDED.status_code,
    response_body = EXCLUDED.response_body, location = EXCLUDED.location, created_at = now(),
    expires_at = EXCLUDED.expires_at
  WHERE k.expires_at <= now();
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'unique_violation',
      MESSAGE = 'an answer is already kept under this Idempotency-Key';
  END IF;
END $$;
