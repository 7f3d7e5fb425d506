-- The trace context (W3C traceparent) of the API request that raised an event, when tracing is on and
-- the trace is sampled (docs/operations.md#tracing): stored with the event and copied to each of its
-- attempts like request_id, so the worker's relay and delivery spans continue the request's trace.
-- Nullable without a default: PostgreSQL adds the columns without rewriting the tables, and a NULL
-- costs a row one bit.
ALTER TABLE "outbox_events" ADD COLUMN "traceparent" TEXT;
ALTER TABLE "webhook_deliveries" ADD COLUMN "traceparent" TEXT;
