-- Events an endpoint was subscribed to when the relay fanned them out but that were not sent because the
-- endpoint was paused or auto-disabled: recover with include "missed" sends them later, in outbox order
-- (docs/product-decisions.md#5-webhooks). Written by the relay in its batch statement, one row per
-- (endpoint, event); nothing is written for an endpoint that is taking deliveries.
-- CreateTable
CREATE TABLE "webhook_missed_events" (
    "community_id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "outbox_id" BIGINT NOT NULL,
    "raised_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhook_missed_events_pkey" PRIMARY KEY ("community_id","endpoint_id","outbox_id")
);

-- CreateIndex
CREATE INDEX "webhook_missed_events_outbox_id_idx" ON "webhook_missed_events"("outbox_id");

-- CreateIndex
CREATE INDEX "webhook_missed_events_raised_at_idx" ON "webhook_missed_events"("raised_at");

-- AddForeignKey
ALTER TABLE "webhook_missed_events" ADD CONSTRAINT "webhook_missed_events_community_id_endpoint_id_fkey" FOREIGN KEY ("community_id", "endpoint_id") REFERENCES "webhook_endpoints"("community_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;
