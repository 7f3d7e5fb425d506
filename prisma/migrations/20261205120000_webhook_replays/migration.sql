-- Bulk replay (docs/api.md#bulk-replay): one row per replay, worked through in batches by the workers. The
-- cursor is the (event raise time, outbox id, endpoint id) of the last selected attempt a committed batch took:
-- a batch's attempts and its cursor advance commit together, so a worker killed mid-batch leaves both as they were.
CREATE TABLE "webhook_replays" (
    "id" UUID NOT NULL,
    "community_id" UUID NOT NULL,
    "endpoint_ids" UUID[] NOT NULL,
    "event_types" TEXT[],
    "status_filter" TEXT NOT NULL,
    "response_status" TEXT[],
    "since" TIMESTAMPTZ(3) NOT NULL,
    "until" TIMESTAMPTZ(3) NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'queued',
    "total" INTEGER NOT NULL,
    "queued" INTEGER NOT NULL DEFAULT 0,
    "skipped" INTEGER NOT NULL DEFAULT 0,
    "cursor_created_at" TIMESTAMPTZ(3) NOT NULL,
    "cursor_outbox_id" BIGINT NOT NULL DEFAULT 0,
    "cursor_endpoint_id" UUID NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "webhook_replays_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "webhook_replays_state_check" CHECK ("state" IN ('queued', 'running', 'done', 'cancelled'))
);

-- the community's list, newest first
CREATE INDEX "webhook_replays_community_id_created_at_id_idx"
    ON "webhook_replays"("community_id", "created_at" DESC, "id" DESC);
-- the workers' claim: the unfinished replays only
CREATE INDEX "webhook_replays_unfinished_idx" ON "webhook_replays"("created_at") WHERE "state" IN ('queued', 'running');

ALTER TABLE "webhook_replays" ADD CONSTRAINT "webhook_replays_community_id_fkey"
    FOREIGN KEY ("community_id") REFERENCES "communities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- What asked for an attempt the person did not get from the event itself: 'resend', 'recover', 'replay';
-- null for the relay's first attempt and the retries (the log tells those apart by the attempt number).
ALTER TABLE "webhook_deliveries" ADD COLUMN "trigger" TEXT, ADD COLUMN "replay_id" UUID;

-- A replay queues a message at most once per endpoint: the batch's insert conflicts on this key instead of
-- writing a second attempt. Partial: the rows of no replay (nearly all) cost it no entry.
CREATE UNIQUE INDEX "webhook_deliveries_replay_once_idx"
    ON "webhook_deliveries"("replay_id", "endpoint_id", "message_id") WHERE "replay_id" IS NOT NULL;
