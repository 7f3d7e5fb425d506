-- Whether webhook.endpoint.failing was raised for the endpoint's current trouble: it is raised once per
-- failure streak, and the first success after it raises webhook.endpoint.recovered and clears this
-- (docs/product-decisions.md#5-webhooks).
-- AlterTable
ALTER TABLE "webhook_endpoints" ADD COLUMN "failing_announced" BOOLEAN NOT NULL DEFAULT false;
