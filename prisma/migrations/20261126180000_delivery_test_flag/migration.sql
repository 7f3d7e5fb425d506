-- A probe sent by the test route (webhook.test, or an example of any event type): shown in the log
-- like any attempt, never retried, resent, recovered nor counted against the endpoint. A constant
-- default: PostgreSQL adds the column without rewriting the table.
ALTER TABLE "webhook_deliveries" ADD COLUMN "is_test" BOOLEAN NOT NULL DEFAULT false;
UPDATE webhook_deliveries SET is_test = true WHERE event_type = 'webhook.test';
