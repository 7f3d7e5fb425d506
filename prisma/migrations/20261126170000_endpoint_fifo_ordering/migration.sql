-- Ordered delivery per endpoint (docs/api.md#webhooks, "Ordering"): an endpoint is 'unordered' (any
-- number of attempts in flight) or 'fifo' (one at a time, in queue order, across every worker).
ALTER TABLE "webhook_endpoints" ADD COLUMN "ordering" TEXT NOT NULL DEFAULT 'unordered';
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_ordering_values"
  CHECK ("ordering" IN ('unordered', 'fifo'));
-- The attempt the endpoint's last FIFO claim took: while that row is PENDING and claimed, the
-- endpoint has its one attempt in flight. NULL after a switch to 'fifo' (the first claim then looks
-- for attempts claimed before the switch).
ALTER TABLE "webhook_endpoints" ADD COLUMN "fifo_claim" UUID;

-- Each attempt's place in its endpoint's queue: its event's outbox id for an attempt the relay
-- wrote (commit order), a later value of the same sequence for one written later (a resend, a
-- recover: after what is queued); a retry keeps its attempt's place. Added without a default first
-- and given one after, so existing rows are not rewritten; only waiting rows need a place.
ALTER TABLE "webhook_deliveries" ADD COLUMN "queue_position" BIGINT;
ALTER TABLE "webhook_deliveries" ALTER COLUMN "queue_position" SET DEFAULT nextval('outbox_events_id_seq');
UPDATE webhook_deliveries d SET queue_position = o.id
FROM outbox_events o WHERE o.message_id = d.message_id AND d.status = 'PENDING';
UPDATE webhook_deliveries SET queue_position = nextval('outbox_events_id_seq')
WHERE status = 'PENDING' AND queue_position IS NULL;

-- A FIFO endpoint's head: its waiting attempt with the lowest place (no column of it is touched by a
-- claim, so claims stay HOT updates).
CREATE INDEX webhook_deliveries_queue_idx ON webhook_deliveries (endpoint_id, queue_position, id)
  WHERE status = 'PENDING';

-- Claims the head of a FIFO endpoint's queue when nothing of it is in flight and the head is due,
-- in one call; first closes the attempt `p_succeeded` as SUCCESS when given (the one just sent:
-- its close and the next claim then share a round trip and a commit), `finished` saying whether it
-- was still PENDING. One claim per endpoint at a time across every worker (an advisory lock held to the
-- end of the call's transaction); each statement after it reads what the claims before committed.
-- outcome: 'claimed' (the row's key, body and the endpoint follow), 'busy' (an attempt is in flight),
-- 'waiting' (the head is not due: a failing head's retry, or one held back by the rate limit),
-- 'empty', 'unordered' (the endpoint is not FIFO), 'inactive' (paused or disabled), 'gone'.
CREATE FUNCTION webhook_claim_fifo_head(
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
