-- The log by message filtered by event type (GET …/messages?eventType=): without an index of its own it
-- read an endpoint's attempts newest first until a page of that type turned up, the whole log for a type
-- that is rare or absent (bench/README.md, "The log by message"). Leading with endpoint_id (unique
-- across communities; the statement still names the community) keeps the key as narrow as the filter
-- allows; created_at DESC, id DESC is the page's order, so a page reads only its own rows. What it
-- costs: one more entry on each attempt's insert and on each status change (a finish is not a HOT
-- update already, since status is indexed); a claim writes no indexed column and stays HOT.
CREATE INDEX "webhook_deliveries_endpoint_id_event_type_created_at_id_idx"
  ON "webhook_deliveries" ("endpoint_id", "event_type", "created_at" DESC, "id" DESC);
