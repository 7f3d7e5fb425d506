// The failover formation of test/ha/cluster.sh for a bench: a pg_auto_failover monitor and two PostgreSQL 15
// nodes with synchronous replication behind HAProxy, on spare ports, its data in a temporary directory. It is
// stopped however the bench ends (done, thrown, interrupted: lib/children.mjs turns the signals into an exit),
// by cluster.sh's own `stop`, which ends its processes by the PIDs it kept. Needs root (the nodes run as the
// `postgres` user) and pg_autoctl and haproxy (test/ha/run.sh installs them).
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import './children.mjs';
import { ROOT } from './read-bench.mjs';

const CLUSTER = resolve(ROOT, 'test/ha/cluster.sh');

/**
 * Starts the formation (about a minute on these machines) and resolves with its env file's values
 * (WRITE_URL: HAProxy's port to the primary; READ_URL: to the standby) and `stop()`.
 */
export async function startFormation() {
  if (process.getuid?.() !== 0)
    throw new Error('the formation needs root (its nodes run as the postgres user)');
  const dir = mkdtempSync(join(tmpdir(), 'cp-bench-ha-'));
  chmodSync(dir, 0o711); // the postgres user reaches its data below it
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      execFileSync('bash', [CLUSTER, 'stop', dir], { stdio: ['ignore', 'ignore', 'inherit'] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  process.once('exit', stop);
  const started = Date.now();
  try {
    await promisify(execFile)('bash', [CLUSTER, 'start', dir], { maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    stop();
    throw new Error(`the formation did not start: ${err.stderr || err.message}`);
  }
  const env = Object.fromEntries(
    readFileSync(join(dir, 'env'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  process.stderr.write(`formation up in ${Math.round((Date.now() - started) / 1000)} s\n`);
  return { ...env, stop };
}

/** What the primary replicates to and how: its synchronous_commit, synchronous_standby_names, standbys. */
export async function replicationState(writeUrl) {
  const db = new pg.Client({ connectionString: writeUrl });
  await db.connect();
  try {
    const setting = async (name) => (await db.query(`SELECT current_setting($1) AS v`, [name])).rows[0].v;
    const { rows } = await db.query('SELECT application_name, sync_state FROM pg_stat_replication');
    return {
      synchronousCommit: await setting('synchronous_commit'),
      synchronousStandbyNames: await setting('synchronous_standby_names'),
      standbys: rows.map((r) => `${r.application_name} (${r.sync_state})`),
    };
  } finally {
    await db.end();
  }
}

/**
 * Sets synchronous_commit on the primary for every session, open ones included (ALTER SYSTEM and a
 * reload: the API's pooled connections follow without a restart); `on` waits for the standby's flush
 * at each commit, `local` for the primary's alone. Resolves once a new session reads the value.
 */
export async function setSynchronousCommit(writeUrl, value) {
  const db = new pg.Client({ connectionString: writeUrl });
  await db.connect();
  try {
    await db.query(`ALTER SYSTEM SET synchronous_commit = '${value}'`);
    await db.query('SELECT pg_reload_conf()');
  } finally {
    await db.end();
  }
  for (const deadline = Date.now() + 10_000; ;) {
    if ((await replicationState(writeUrl)).synchronousCommit === value) return;
    if (Date.now() > deadline) throw new Error(`synchronous_commit did not become ${value}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Resolves once the standby behind `readUrl` has replayed all the primary had written when called. */
export async function standbyCaughtUp(writeUrl, readUrl) {
  const primary = new pg.Client({ connectionString: writeUrl });
  await primary.connect();
  const lsn = (await primary.query('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0].lsn;
  await primary.end();
  const standby = new pg.Client({ connectionString: readUrl });
  await standby.connect();
  try {
    for (const deadline = Date.now() + 60_000; ;) {
      const { rows } = await standby.query(
        'SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn() >= $1::pg_lsn AS done',
        [lsn],
      );
      if (!rows[0].standby) throw new Error('READ_URL leads to a primary');
      if (rows[0].done) return;
      if (Date.now() > deadline) throw new Error('the standby did not catch up within 60 s');
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await standby.end();
  }
}

/** Ends an API started on the formation and resolves once it has exited, before the formation stops under it. */
export async function stopApi(api) {
  if (!api || api.exitCode !== null || api.signalCode !== null) return;
  const exited = new Promise((r) => api.once('exit', r));
  api.kill('SIGTERM');
  await exited;
}
