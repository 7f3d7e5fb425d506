-- Expunge (docs/api.md#expunge-a-messages-content): when a message's content was erased on request.
-- The attempt rows carry it because they outlive the event's outbox row (the pruner deletes that
-- row after WEBHOOK_MESSAGE_RETENTION), and the log must keep saying why a body is gone.
-- A nullable column without a default: no rewrite of the table, no lock beyond the catalog's.
ALTER TABLE webhook_deliveries ADD COLUMN expunged_at timestamptz(3);
