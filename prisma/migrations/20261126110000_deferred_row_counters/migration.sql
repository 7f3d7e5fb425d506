-- The per-community counters are bumped when a transaction commits, not when its INSERT runs.
--
-- A statement-level trigger bumped the community's counter row during the INSERT, so the row's lock was
-- held from the INSERT to the COMMIT. A write alone in its transaction holds it for one statement; a write
-- whose transaction goes on (an Idempotency-Key's answer is stored and committed after the handler,
-- docs/idempotency.md#how-it-holds-across-instances-and-crashes) held it across the request's remaining work, and every write of the
-- community queued behind it. A deferred constraint trigger runs at COMMIT instead: the lock is taken and
-- released within the commit. Constraint triggers are row-level only (no transition tables), so a bulk
-- INSERT of n rows makes n upserts of the one counter row at commit. Deletes stay statement-level: they
-- are not on a hot path.
CREATE FUNCTION bump_community_counter_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO community_counters (community_id, scope, value) VALUES (NEW.community_id, TG_ARGV[0], 1)
  ON CONFLICT (community_id, scope) DO UPDATE SET value = community_counters.value + 1;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION count_rows_per_community(table_name text, counter_scope text DEFAULT NULL)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  scope_name text := coalesce(counter_scope, table_name);
BEGIN
  EXECUTE format(
    'CREATE CONSTRAINT TRIGGER %I AFTER INSERT ON %I DEFERRABLE INITIALLY DEFERRED '
    'FOR EACH ROW EXECUTE FUNCTION bump_community_counter_row(%L)',
    table_name || '_count_ins', table_name, scope_name);
  EXECUTE format(
    'CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows '
    'FOR EACH STATEMENT EXECUTE FUNCTION bump_community_counter(%L)',
    table_name || '_count_del', table_name, scope_name);
END $$;

DROP TRIGGER tweets_count_ins ON tweets;
CREATE CONSTRAINT TRIGGER tweets_count_ins AFTER INSERT ON tweets DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION bump_community_counter_row('tweets');
DROP TRIGGER tasks_count_ins ON tasks;
CREATE CONSTRAINT TRIGGER tasks_count_ins AFTER INSERT ON tasks DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION bump_community_counter_row('tasks');
DROP TRIGGER memberships_count_ins ON memberships;
CREATE CONSTRAINT TRIGGER memberships_count_ins AFTER INSERT ON memberships DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION bump_community_counter_row('members');
