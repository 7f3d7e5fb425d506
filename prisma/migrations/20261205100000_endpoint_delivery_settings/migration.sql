-- An endpoint's own delivery settings (docs/api.md#webhooks, "Delivery settings"): the waits before
-- attempts 2, 3, … in milliseconds ('{}': the platform's WEBHOOK_RETRY_SCHEDULE; a list column stays
-- NOT NULL so Prisma reads it as a list) and each send's timeout (NULL: WEBHOOK_TIMEOUT). The API
-- checks the same bounds; these keep any other writer to them.
-- AlterTable
ALTER TABLE "webhook_endpoints" ADD COLUMN "retry_schedule_ms" INTEGER[] NOT NULL DEFAULT '{}',
                                ADD COLUMN "timeout_ms" INTEGER;
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_retry_schedule_range"
  CHECK (cardinality("retry_schedule_ms") <= 20
         AND (cardinality("retry_schedule_ms") = 0
              OR (array_ndims("retry_schedule_ms") = 1
                  AND array_position("retry_schedule_ms", NULL) IS NULL
                  AND 1000 <= ALL ("retry_schedule_ms") AND 86400000 >= ALL ("retry_schedule_ms"))));
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_timeout_range"
  CHECK ("timeout_ms" BETWEEN 1000 AND 30000);
