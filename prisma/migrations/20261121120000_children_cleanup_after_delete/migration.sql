-- A BEFORE DELETE trigger on tweets/tasks removed the parent's comments and likes, whose own
-- triggers then updated the parent's counters: the very row being deleted, which PostgreSQL refuses
-- ("tuple to be deleted was already modified by an operation triggered by the current command").
-- Running the cleanup AFTER the parent is gone makes those counter updates touch no row.
DROP TRIGGER tweets_delete_children ON tweets;
DROP TRIGGER tasks_delete_children ON tasks;

CREATE OR REPLACE FUNCTION delete_parent_children() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM comments WHERE community_id = OLD.community_id AND parent_type = TG_TABLE_NAME::"ParentType" AND parent_id = OLD.id;
  DELETE FROM likes    WHERE community_id = OLD.community_id AND parent_type = TG_TABLE_NAME::"ParentType" AND parent_id = OLD.id;
  RETURN NULL;
END $$;

CREATE TRIGGER tweets_delete_children AFTER DELETE ON tweets
  FOR EACH ROW EXECUTE FUNCTION delete_parent_children();
CREATE TRIGGER tasks_delete_children AFTER DELETE ON tasks
  FOR EACH ROW EXECUTE FUNCTION delete_parent_children();
