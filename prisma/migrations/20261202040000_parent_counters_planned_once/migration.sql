-- The like and comment counters' trigger with one static UPDATE per (counter, parent table) instead of
-- EXECUTE format(...): PL/pgSQL plans a static statement once per session, where EXECUTE parsed and planned
-- it again for every like and comment, while the parent row's lock was held (every like and comment of one
-- item waits for that lock). A parent type without a branch raises CASE_NOT_FOUND instead of counting nothing.
CREATE OR REPLACE FUNCTION bump_parent_counter() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  delta int := CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE -1 END;
  r record := CASE WHEN TG_OP = 'INSERT' THEN NEW ELSE OLD END;
BEGIN
  CASE TG_ARGV[0] || ':' || r.parent_type::text
    WHEN 'like_count:tweets' THEN
      UPDATE tweets SET like_count = like_count + delta WHERE community_id = r.community_id AND id = r.parent_id;
    WHEN 'like_count:tasks' THEN
      UPDATE tasks SET like_count = like_count + delta WHERE community_id = r.community_id AND id = r.parent_id;
    WHEN 'comment_count:tweets' THEN
      UPDATE tweets SET comment_count = comment_count + delta WHERE community_id = r.community_id AND id = r.parent_id;
    WHEN 'comment_count:tasks' THEN
      UPDATE tasks SET comment_count = comment_count + delta WHERE community_id = r.community_id AND id = r.parent_id;
  END CASE;
  RETURN NULL;
END $$;
