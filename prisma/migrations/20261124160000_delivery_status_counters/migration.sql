-- The delivery log's `total` per (endpoint, status) without count(*) (297 ms at p99 for an
-- endpoint of 1,000,000 attempts): statement-level triggers keep counter rows exact in the same
-- transaction as every insert, status change and delete of an attempt, whichever statement makes it
-- (the relay's fan-out, the worker's batched claims and finishes, cancellations, the sweep, resend,
-- recover, the test route). Each statement adds its batch's NET change per (endpoint, status) once:
-- a claim batch (PENDING stays PENDING) writes no counter row at all, a finish batch of 500 writes
-- one row per endpoint and outcome.
--
-- Two batches of the worker run at once; if both bumped the same row the second would wait for the
-- first's commit. So each (endpoint, status) has up to 16 rows ("slots"), and a statement adds to
-- the slot of its connection (backend pid mod 16): concurrent statements on different connections
-- touch different rows. The total is the sum of an endpoint's slots (a primary-key range read); a
-- slot may be negative (an attempt inserted through one connection and closed through another).
CREATE TABLE "webhook_delivery_counters" (
    "community_id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "status" "DeliveryStatus" NOT NULL,
    "slot" SMALLINT NOT NULL,
    "value" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "webhook_delivery_counters_pkey" PRIMARY KEY ("community_id","endpoint_id","status","slot")
);

ALTER TABLE "webhook_delivery_counters" ADD CONSTRAINT "webhook_delivery_counters_community_id_endpoint_id_fkey" FOREIGN KEY ("community_id", "endpoint_id") REFERENCES "webhook_endpoints"("community_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE FUNCTION count_webhook_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- rows in key order, so that two statements lock their counter rows in the same order (no deadlock)
  IF TG_OP = 'INSERT' THEN
    INSERT INTO webhook_delivery_counters AS c (community_id, endpoint_id, status, slot, value)
      SELECT community_id, endpoint_id, status, pg_backend_pid() % 16, count(*)
        FROM new_rows GROUP BY community_id, endpoint_id, status
       ORDER BY community_id, endpoint_id, status
    ON CONFLICT (community_id, endpoint_id, status, slot) DO UPDATE SET value = c.value + EXCLUDED.value;
  ELSIF TG_OP = 'UPDATE' THEN
    -- every old row leaves its (endpoint, status), every new row enters its own: the net change
    INSERT INTO webhook_delivery_counters AS c (community_id, endpoint_id, status, slot, value)
      SELECT community_id, endpoint_id, status, pg_backend_pid() % 16, sum(delta)
        FROM (SELECT community_id, endpoint_id, status, -1 AS delta FROM old_rows
              UNION ALL
              SELECT community_id, endpoint_id, status, 1 FROM new_rows) AS change
       GROUP BY community_id, endpoint_id, status HAVING sum(delta) <> 0
       ORDER BY community_id, endpoint_id, status
    ON CONFLICT (community_id, endpoint_id, status, slot) DO UPDATE SET value = c.value + EXCLUDED.value;
  ELSE
    -- an endpoint being deleted takes its counter rows with it (cascade): only count for live ones
    INSERT INTO webhook_delivery_counters AS c (community_id, endpoint_id, status, slot, value)
      SELECT o.community_id, o.endpoint_id, o.status, pg_backend_pid() % 16, -count(*)
        FROM old_rows o
       WHERE EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.community_id = o.community_id AND e.id = o.endpoint_id)
       GROUP BY o.community_id, o.endpoint_id, o.status
       ORDER BY o.community_id, o.endpoint_id, o.status
    ON CONFLICT (community_id, endpoint_id, status, slot) DO UPDATE SET value = c.value + EXCLUDED.value;
  END IF;
  RETURN NULL;
END $$;

-- No writer may change the table between the backfill and the triggers: both in this transaction,
-- under a lock that blocks writes until it commits.
LOCK TABLE "webhook_deliveries" IN SHARE ROW EXCLUSIVE MODE;

CREATE TRIGGER webhook_deliveries_count_ins AFTER INSERT ON webhook_deliveries REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION count_webhook_deliveries();
CREATE TRIGGER webhook_deliveries_count_upd AFTER UPDATE ON webhook_deliveries
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION count_webhook_deliveries();
CREATE TRIGGER webhook_deliveries_count_del AFTER DELETE ON webhook_deliveries REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION count_webhook_deliveries();

-- The attempts already there.
INSERT INTO webhook_delivery_counters (community_id, endpoint_id, status, slot, value)
  SELECT community_id, endpoint_id, status, 0, count(*) FROM webhook_deliveries
   GROUP BY community_id, endpoint_id, status;
