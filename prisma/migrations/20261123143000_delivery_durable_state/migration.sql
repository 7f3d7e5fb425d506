-- Delivery state lives in PostgreSQL (issue 10): the relay writes each (event, endpoint) pair's first
-- attempt as a PENDING row in the transaction that marks the outbox row relayed; a worker claims a
-- row (started_at) before it sends; the sweep re-queues due unclaimed rows and closes claims whose
-- worker died.
ALTER TABLE "outbox_events" ADD COLUMN "request_id" TEXT;
ALTER TABLE "webhook_deliveries" ADD COLUMN "started_at" TIMESTAMPTZ(3), ADD COLUMN "request_id" TEXT;

CREATE INDEX "webhook_deliveries_message_id_idx" ON "webhook_deliveries" ("message_id");

-- The sweep's two questions, each answered from a small partial index: which unclaimed attempts are
-- due, and which claims are older than a send can take.
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at, id)
  WHERE status = 'PENDING' AND started_at IS NULL;
CREATE INDEX webhook_deliveries_claimed_idx ON webhook_deliveries (started_at)
  WHERE status = 'PENDING' AND started_at IS NOT NULL;

-- Attempts waiting from before this migration (no due time recorded) are due now, so the sweep finds them.
UPDATE webhook_deliveries SET next_attempt_at = created_at WHERE status = 'PENDING' AND next_attempt_at IS NULL;
