-- Wakes the worker's outbox relay as soon as events commit (LISTEN outbox_events), instead of
-- waiting for its next poll. NOTIFY is sent at commit and folded per transaction, and one per
-- statement is enough: the relay reads every unrelayed row when it wakes. Polling stays as the
-- backstop for a lost notification or a relay that cannot LISTEN (e.g. behind transaction pooling).
CREATE FUNCTION outbox_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('outbox_events', '');
  RETURN NULL;
END
$$;

CREATE TRIGGER outbox_events_notify
AFTER INSERT ON outbox_events
FOR EACH STATEMENT EXECUTE FUNCTION outbox_events_notify();
