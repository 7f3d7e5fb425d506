-- An endpoint's figures over time (docs/api.md#webhooks, "Figures"): one row per endpoint and UTC hour
-- with the attempts whose outcome was recorded in that hour, and their latencies as counts over fixed
-- bounds, so a chart of a day or a week reads at most 24 or 168 rows whatever the log's size.
CREATE TABLE "webhook_attempt_stats" (
    "community_id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "bucket_start" TIMESTAMPTZ(3) NOT NULL,
    "attempts" INTEGER NOT NULL,
    "succeeded" INTEGER NOT NULL,
    "failed" INTEGER NOT NULL,
    -- counts per latency bin: [0, 5), [5, 10), … [10000, ∞) ms (webhook_latency_bounds)
    "latency_counts" INTEGER[] NOT NULL,

    CONSTRAINT "webhook_attempt_stats_pkey" PRIMARY KEY ("community_id", "endpoint_id", "bucket_start")
);
-- the pruner deletes buckets by age
CREATE INDEX "webhook_attempt_stats_bucket_start_idx" ON "webhook_attempt_stats"("bucket_start");
-- No foreign key to webhook_endpoints: its check would lock the endpoint's row (FOR KEY SHARE) from inside
-- the worker's finish statement, the hottest statement there is, beside the success path's own lock on that
-- row; one more waiter on the row the busy endpoint's workers already queue on. The endpoint's delete removes
-- its rows in the same statement (WebhookEndpointsStore.remove); a row a finish writes at that very moment
-- is pruned with its age.

-- The latency bins' lower bounds in ms after the first bin [0, 5): the one list of them (the API reads
-- it back with the buckets to estimate percentiles).
CREATE FUNCTION webhook_latency_bounds() RETURNS INT[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT '{5,10,25,50,100,250,500,1000,2500,5000,10000}'::int[]
$$;
ALTER TABLE "webhook_attempt_stats" ADD CONSTRAINT "webhook_attempt_stats_latency_bins"
  CHECK (cardinality("latency_counts") = cardinality(webhook_latency_bounds()) + 1);

-- Counts a batch of attempts whose outcome was just recorded into their endpoints' current hour:
-- called inside the statement that records them (the worker's finish, the FIFO claim's close of a
-- success, the test route's finish), so the figures commit with the outcomes, in one round trip.
-- Set-based: one row per endpoint of the batch, taken in key order so that two batches never wait
-- on each other's rows in opposite orders. One statement with the bins spelled out (a nested SQL
-- function per endpoint was planned on every call: a visible part of the finish's cost, bench/README.md);
-- plpgsql, so that statement's plan is cached per connection. The table's CHECK keeps the twelve bins
-- and webhook_latency_bounds in step.
CREATE FUNCTION webhook_count_attempts(
  p_community UUID[], p_endpoint UUID[], p_succeeded BOOLEAN[], p_duration_ms INT[]
) RETURNS VOID LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  INSERT INTO webhook_attempt_stats AS s
    (community_id, endpoint_id, bucket_start, attempts, succeeded, failed, latency_counts)
  SELECT a.community_id, a.endpoint_id, date_trunc('hour', now(), 'UTC'), count(*)::int,
         count(*) FILTER (WHERE a.succeeded)::int, count(*) FILTER (WHERE NOT a.succeeded)::int,
         -- an attempt without a duration is in no bin
         ARRAY[count(*) FILTER (WHERE a.bin = 0), count(*) FILTER (WHERE a.bin = 1),
               count(*) FILTER (WHERE a.bin = 2), count(*) FILTER (WHERE a.bin = 3),
               count(*) FILTER (WHERE a.bin = 4), count(*) FILTER (WHERE a.bin = 5),
               count(*) FILTER (WHERE a.bin = 6), count(*) FILTER (WHERE a.bin = 7),
               count(*) FILTER (WHERE a.bin = 8), count(*) FILTER (WHERE a.bin = 9),
               count(*) FILTER (WHERE a.bin = 10), count(*) FILTER (WHERE a.bin = 11)]::int[]
  FROM (SELECT u.community_id, u.endpoint_id, u.succeeded,
               width_bucket(u.duration_ms, webhook_latency_bounds()) AS bin
        FROM unnest(p_community, p_endpoint, p_succeeded, p_duration_ms)
          AS u(community_id, endpoint_id, succeeded, duration_ms)) a
  GROUP BY a.community_id, a.endpoint_id
  ORDER BY a.community_id, a.endpoint_id
  ON CONFLICT (community_id, endpoint_id, bucket_start) DO UPDATE
  SET attempts = s.attempts + excluded.attempts,
      succeeded = s.succeeded + excluded.succeeded,
      failed = s.failed + excluded.failed,
      latency_counts = ARRAY(SELECT x + y FROM unnest(s.latency_counts, excluded.latency_counts) WITH ORDINALITY
                             AS u(x, y, i) ORDER BY i);
END;
$$;

-- The FIFO claim's close of a success (its first statement) now counts the attempt too: the function
-- as the migration endpoint_fifo_ordering wrote it, plus that call.
CREATE OR REPLACE FUNCTION webhook_claim_fifo_head(
  p_community UUID, p_endpoint UUID, p_succeeded UUID DEFAULT NULL, p_response_status INT DEFAULT NULL,
  p_response_body TEXT DEFAULT NULL, p_duration_ms INT DEFAULT NULL
)
RETURNS TABLE (
  finished BOOLEAN, outcome TEXT, delivery_id UUID, message_id TEXT, event_type TEXT, attempt INT, request_id TEXT,
  outbox_id BIGINT, payload JSONB, url TEXT, is_active BOOLEAN, disabled_at TIMESTAMPTZ(3),
  consecutive_failures INT, failing_since TIMESTAMPTZ(3), last_success_at TIMESTAMPTZ(3),
  custom_headers JSONB, rate_limit INT, ordering TEXT, secrets_version FLOAT8
) LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  e webhook_endpoints%ROWTYPE;
  head webhook_deliveries%ROWTYPE;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('webhook-fifo:' || p_endpoint::text, 0));
  IF p_succeeded IS NOT NULL THEN
    UPDATE webhook_deliveries d
    SET status = 'SUCCESS', response_status = p_response_status, response_body = p_response_body,
        duration_ms = p_duration_ms, error = NULL, next_attempt_at = NULL, updated_at = now()
    WHERE d.community_id = p_community AND d.id = p_succeeded AND d.status = 'PENDING';
    finished := FOUND;
    IF finished THEN
      PERFORM webhook_count_attempts(ARRAY[p_community], ARRAY[p_endpoint], ARRAY[true], ARRAY[p_duration_ms]);
    END IF;
  END IF;
  SELECT * INTO e FROM webhook_endpoints w WHERE w.community_id = p_community AND w.id = p_endpoint;
  IF NOT FOUND THEN
    RETURN QUERY SELECT finished, 'gone', NULL::uuid, NULL, NULL, NULL::int, NULL, NULL::bigint, NULL::jsonb, NULL,
      NULL::boolean, NULL::timestamptz, NULL::int, NULL::timestamptz, NULL::timestamptz, NULL::jsonb,
      NULL::int, NULL, NULL::float8;
    RETURN;
  END IF;

  IF e.ordering <> 'fifo' THEN
    outcome := 'unordered';
  ELSIF NOT e.is_active OR e.disabled_at IS NOT NULL THEN
    outcome := 'inactive';
  ELSIF e.fifo_claim IS NOT NULL AND EXISTS (
      SELECT 1 FROM webhook_deliveries c
      WHERE c.community_id = p_community AND c.id = e.fifo_claim AND c.status = 'PENDING' AND c.started_at IS NOT NULL) THEN
    outcome := 'busy';
  ELSIF e.fifo_claim IS NULL AND EXISTS (
      -- the first FIFO claim since the switch: attempts claimed before it finish first
      SELECT 1 FROM webhook_deliveries c
      WHERE c.endpoint_id = p_endpoint AND c.status = 'PENDING' AND c.started_at IS NOT NULL) THEN
    outcome := 'busy';
  ELSE
    SELECT * INTO head FROM webhook_deliveries h
    WHERE h.endpoint_id = p_endpoint AND h.status = 'PENDING'
    ORDER BY h.queue_position, h.id LIMIT 1;
    IF NOT FOUND THEN
      outcome := 'empty';
    ELSIF head.started_at IS NOT NULL THEN
      outcome := 'busy';
    ELSIF head.next_attempt_at > now() THEN
      outcome := 'waiting';
    ELSE
      UPDATE webhook_deliveries SET started_at = now(), updated_at = now() WHERE id = head.id;
      UPDATE webhook_endpoints SET fifo_claim = head.id WHERE id = p_endpoint;
      outcome := 'claimed';
    END IF;
  END IF;

  RETURN QUERY SELECT finished, outcome, head.id, head.message_id, head.event_type, head.attempt, head.request_id,
    o.id, o.payload::jsonb, e.url, e.is_active, e.disabled_at, e.consecutive_failures, e.failing_since,
    e.last_success_at, e.custom_headers::jsonb, e.rate_limit, e.ordering,
    (SELECT round(extract(epoch FROM max(s.created_at)) * 1000)::float8
       FROM webhook_secrets s WHERE s.community_id = e.community_id AND s.endpoint_id = e.id)
  FROM (SELECT 1) one LEFT JOIN outbox_events o ON outcome = 'claimed' AND o.message_id = head.message_id;
END;
$$;
