-- Every event names the resource it is about (docs/product-decisions.md#event-subjects): its `subject`, an id,
-- stored with the event and copied onto each of its attempts (as event_type and request_id are), so the log can
-- be searched by it for as long as it keeps the attempts, after the event's body has been pruned from the outbox.
-- Text, as message ids are: every subject the catalog names is a uuid, but the column does not forbid a later
-- resource whose id is not. Rows written before this migration keep null (their bodies were built without one).
ALTER TABLE "outbox_events" ADD COLUMN "subject" text;
ALTER TABLE "webhook_deliveries" ADD COLUMN "subject" text;

-- The community's messages, newest first (GET …/webhooks/messages): a message's order is its id (msg_<ULID>,
-- ordered by the instant it was raised, the same on every endpoint and attempt). Only attempt 1 is indexed:
-- every (message, endpoint) the log keeps has its attempt 1 (retention deletes a message's attempts at an
-- endpoint together), so the index holds each pair once, and retries and resends write no entry in it.
-- The later attempts of a page's messages are found through the (message, endpoint, attempt) unique index.
CREATE INDEX "webhook_deliveries_community_id_message_id_idx"
  ON "webhook_deliveries" ("community_id", "message_id" DESC) WHERE "attempt" = 1;
-- The same, by subject: a subject's messages newest first, whatever the community's size.
CREATE INDEX "webhook_deliveries_community_id_subject_message_id_idx"
  ON "webhook_deliveries" ("community_id", "subject", "message_id" DESC) WHERE "attempt" = 1;
