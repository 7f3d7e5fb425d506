-- An endpoint's rate limit (docs/api.md#webhooks): deliveries per second across every
-- worker, 1 to 10,000; NULL: none.
-- AlterTable
ALTER TABLE "webhook_endpoints" ADD COLUMN "rate_limit" INTEGER;
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_rate_limit_range"
  CHECK ("rate_limit" BETWEEN 1 AND 10000);
