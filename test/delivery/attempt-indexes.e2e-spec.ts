import { Client } from 'pg';

/**
 * webhook_deliveries takes the most writes of any table: the relay inserts every attempt, and every
 * finish (and every claim that is not HOT) writes an entry into each index again. So it keeps only the
 * indexes a statement reads; each is named here with its reader. The other tenant tables' (community_id,
 * id) key is left out on purpose: no foreign key points at an attempt and the primary key finds one by id
 * (bench/README.md#delivery-throughput-benchdelivery-throughputmjs); nor an index on the message alone,
 * which the unique key, led by the message, serves (the same).
 */
describe('the indexes of webhook_deliveries', () => {
  it('are the ones its statements read, and no more', async () => {
    const db = new Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query<{ indexname: string }>(
        `SELECT indexname FROM pg_indexes WHERE tablename = 'webhook_deliveries' ORDER BY indexname`,
      );
      expect(rows.map((r) => r.indexname)).toEqual([
        // the delivery log's page, and its status filter
        'webhook_deliveries_community_id_endpoint_id_created_at_id_idx',
        'webhook_deliveries_community_id_endpoint_id_status_created__idx',
        // the community's messages newest first, and those of one subject (attempt 1 only: partial)
        'webhook_deliveries_community_id_message_id_idx',
        'webhook_deliveries_community_id_subject_message_id_idx',
        // the log by message filtered by event type
        'webhook_deliveries_endpoint_id_event_type_created_at_id_idx',
        // the claim, the relay's and the retry's ON CONFLICT, the log's filter by message, and (by its
        // leading column) the outbox pruner and the expunge, which ask by message alone
        'webhook_deliveries_message_id_endpoint_id_attempt_key',
        // the sweep's due attempts
        'webhook_deliveries_pending_idx',
        // the finish, the give-back, by id
        'webhook_deliveries_pkey',
        // a FIFO endpoint's head
        'webhook_deliveries_queue_idx',
        // a bulk replay's attempts: each message at most once per replay and endpoint, and the replay's pending count
        'webhook_deliveries_replay_once_idx',
      ]);
    } finally {
      await db.end();
    }
  });
});
