-- A transaction may ask for its per-community counter bumps at COMMIT instead of at each INSERT, by setting
-- app.counters_at_commit to 'on' for itself (SET LOCAL).
--
-- The statement-level triggers bump the community's counter row during the INSERT, so the row's lock is held
-- from the INSERT to the COMMIT. A write alone in its transaction holds it for one statement. A request with
-- an Idempotency-Key keeps its transaction open until its answer is stored, after the handler
-- (docs/idempotency.md#how-it-holds-across-instances-and-crashes), and every other write of the community
-- would queue behind that lock. Such a transaction sets app.counters_at_commit: its inserted rows are counted
-- by deferred constraint triggers, which run at COMMIT and hold the lock only while it completes. They are
-- row-level (constraint triggers cannot be statement-level), so only such transactions use them: updating
-- one row once per inserted row in a single transaction costs time quadratic in the rows, which bulk
-- inserts (the seed, the benchmarks) cannot afford. Deletes are unchanged.
CREATE FUNCTION bump_community_counter_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO community_counters (community_id, scope, value) VALUES (NEW.community_id, TG_ARGV[0], 1)
  ON CONFLICT (community_id, scope) DO UPDATE SET value = community_counters.value + 1;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION bump_community_counter() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  scope_name text := TG_ARGV[0];
BEGIN
  IF TG_OP = 'INSERT' THEN
    -- counted at commit, row by row, by the deferred trigger instead
    IF current_setting('app.counters_at_commit', true) = 'on' THEN
      RETURN NULL;
    END IF;
    INSERT INTO community_counters (community_id, scope, value)
      SELECT community_id, scope_name, count(*) FROM new_rows GROUP BY community_id
    ON CONFLICT (community_id, scope) DO UPDATE SET value = community_counters.value + EXCLUDED.value;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE community_counters c SET value = c.value - d.n
      FROM (SELECT community_id, count(*) AS n FROM old_rows GROUP BY community_id) d
     WHERE c.community_id = d.community_id AND c.scope = scope_name;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION count_rows_per_community(table_name text, counter_scope text DEFAULT NULL)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  scope_name text := coalesce(counter_scope, table_name);
BEGIN
  EXECUTE format(
    'CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows '
    'FOR EACH STATEMENT EXECUTE FUNCTION bump_community_counter(%L)',
    table_name || '_count_ins', table_name, scope_name);
  EXECUTE format(
    'CREATE CONSTRAINT TRIGGER %I AFTER INSERT ON %I DEFERRABLE INITIALLY DEFERRED FOR EACH ROW '
    'WHEN (current_setting(''app.counters_at_commit'', true) = ''on'') '
    'EXECUTE FUNCTION bump_community_counter_row(%L)',
    table_name || '_count_ins_at_commit', table_name, scope_name);
  EXECUTE format(
    'CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows '
    'FOR EACH STATEMENT EXECUTE FUNCTION bump_community_counter(%L)',
    table_name || '_count_del', table_name, scope_name);
END $$;

CREATE CONSTRAINT TRIGGER tweets_count_ins_at_commit AFTER INSERT ON tweets DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (current_setting('app.counters_at_commit', true) = 'on')
  EXECUTE FUNCTION bump_community_counter_row('tweets');
CREATE CONSTRAINT TRIGGER tasks_count_ins_at_commit AFTER INSERT ON tasks DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (current_setting('app.counters_at_commit', true) = 'on')
  EXECUTE FUNCTION bump_community_counter_row('tasks');
CREATE CONSTRAINT TRIGGER memberships_count_ins_at_commit AFTER INSERT ON memberships DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (current_setting('app.counters_at_commit', true) = 'on')
  EXECUTE FUNCTION bump_community_counter_row('members');
