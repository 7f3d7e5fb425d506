-- The attempts' unique key led by the message instead of the endpoint, and the index on the message alone
-- dropped: every statement that names an attempt by its key gives all three columns, and the two that ask by
-- message alone (the outbox pruner, the expunge) read the key's leading column. Message ids are ULIDs, so new
-- entries land at the key's right edge, beside the same message's attempts at its other endpoints. One index
-- fewer: an entry fewer at every relay's insert and every finish.
CREATE UNIQUE INDEX "webhook_deliveries_message_id_endpoint_id_attempt_key"
  ON "webhook_deliveries" ("message_id", "endpoint_id", "attempt");
DROP INDEX "webhook_deliveries_endpoint_id_message_id_attempt_key";
DROP INDEX "webhook_deliveries_message_id_idx";
