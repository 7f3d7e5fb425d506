-- Every attempt row is written once by the relay, and every claim that is not HOT and every finish writes an
-- entry into each of the table's indexes again. This one, (community_id, id), is read by nothing: no foreign
-- key points at an attempt, and every statement that finds an attempt by id has the primary key.
DROP INDEX "webhook_deliveries_community_id_id_key";
