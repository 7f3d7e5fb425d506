-- A claim (started_at = now()) and the give-back of a claim become HOT updates: PostgreSQL writes no
-- index entry for an update that changes no indexed column (predicates of partial indexes included)
-- and finds room for the new row version on the same page. The two sweep indexes named started_at
-- (in their predicates, and one as its key), so each claim wrote a new entry into all eight of the
-- table's indexes (bench/README.md, "Delivery at the limit").
--
-- One partial index of PENDING rows by due time replaces both: the sweep's due attempts read it and
-- skip the claimed rows on the heap (at most the attempts in flight), and its abandoned claims read
-- it and filter on started_at (a claim is made once its row is due, so it sorts among the oldest).
DROP INDEX IF EXISTS webhook_deliveries_due_idx;
DROP INDEX IF EXISTS webhook_deliveries_claimed_idx;
CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (next_attempt_at, id)
  WHERE status = 'PENDING';

-- Room on each page for the claim's new row version (a full page sends it to another page, and the
-- update is not HOT). Applies to pages written from now on.
ALTER TABLE webhook_deliveries SET (fillfactor = 80);
