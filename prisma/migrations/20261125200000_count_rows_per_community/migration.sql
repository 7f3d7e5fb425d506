-- A counted table (its newest-first list answers an exact total, src/common/pagination/newest-first-page.ts)
-- is one line in the migration that creates it: SELECT count_rows_per_community('<table>'); adds the two
-- statement-level triggers that keep community_counters' row for that scope (the table's name unless
-- another is given) in step with its inserts and deletes, in the same transaction (bump_community_counter).
CREATE FUNCTION count_rows_per_community(table_name text, counter_scope text DEFAULT NULL)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  scope_name text := coalesce(counter_scope, table_name);
BEGIN
  EXECUTE format(
    'CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows '
    'FOR EACH STATEMENT EXECUTE FUNCTION bump_community_counter(%L)',
    table_name || '_count_ins', table_name, scope_name);
  EXECUTE format(
    'CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows '
    'FOR EACH STATEMENT EXECUTE FUNCTION bump_community_counter(%L)',
    table_name || '_count_del', table_name, scope_name);
END $$;
