// What the write benches share (bench/writes.mjs, bench/ha-writes.mjs), and bench/replica-reads.mjs's wrk: the
// body the floor posts, the floor's load settings and its `write` round, the writes' own community (emptied
// and vacuumed around each run), and wrk with those settings and a Lua script per run.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { floorPresent, runFloor } from './floor.mjs';
import { BENCH_URL, figures, ROUNDS } from './read-bench.mjs';

/** The floor's body (floor-read.mjs posts the same to the compared route). */
export const PROBE_BODY = JSON.stringify({ content: 'A write of the benchmark: '.padEnd(200, 'x') });

/** The floor's load settings (floor-read.mjs reads the same variables, with the same defaults). */
export const LOAD = {
  connections: Number(process.env.CONNS ?? 16),
  warmupSecs: Number(process.env.WARMUP ?? 3),
  durationSecs: Number(process.env.DURATION ?? 15),
};

const WRITES_SLUG = 'bench-writes';

/**
 * A community of its own for the writes (the read benches count the tweets of theirs), emptied of what an
 * earlier run wrote; its owner is the read benches' owner.
 */
export async function writesCommunity(db, ownerId) {
  const found = await db.query('SELECT id FROM communities WHERE slug = $1', [WRITES_SLUG]);
  if (found.rowCount > 0) {
    await emptyWritesCommunity(db, found.rows[0].id);
    return found.rows[0].id;
  }
  const id = randomUUID();
  await db.query(
    `INSERT INTO communities (id, slug, name, plan, updated_at) VALUES ($1, $2, $2, 'PRO', now())`,
    [id, WRITES_SLUG],
  );
  await db.query(
    `INSERT INTO memberships (id, community_id, user_id, role, updated_at) VALUES ($1, $2, $3, 'OWNER', now())`,
    [randomUUID(), id, ownerId],
  );
  return id;
}

/**
 * What a run wrote: the tweets (their comments go with them) and the events no worker relayed; then the
 * tables are vacuumed, since the read benches share this database and their plans would otherwise see
 * a run's hundreds of thousands of dead rows (the delivery log's join to the outbox went from an index
 * lookup to a scan of them).
 */
export async function emptyWritesCommunity(db, id) {
  await db.query('DELETE FROM tweets WHERE community_id = $1', [id]);
  await db.query('DELETE FROM outbox_events WHERE community_id = $1', [id]);
  await db.query('DELETE FROM idempotency_keys'); // the bench database's own: no other writer keys
  await db.query('DELETE FROM idempotency_callers');
  await vacuumWritten(db);
}

/**
 * What autovacuum would have done meanwhile, which these machines turn off: every write updates its
 * community's counter row (and every keyed write its caller's count), and without a vacuum each run
 * found the versions the runs before it left, and a run's rate depended on how many ran before it.
 */
export async function vacuumWritten(db) {
  await db.query(
    'VACUUM ANALYZE tweets, comments, outbox_events, idempotency_keys, idempotency_callers, community_counters',
  );
}

/**
 * wrk with the floor's settings (connections, two threads, warm-up, duration) and a script that varies
 * what the floor cannot: `ids` gives each request a tweet of its own (the path's `ID`; thread t of n
 * takes the tweets t, t + n, t + 2n, ... of a file its script reads at start, one Lua state per thread;
 * the warm-up and the measured run read different files, so no tweet is used twice); `keyed` sends a
 * fresh Idempotency-Key on each request. `baseUrl` is the API's (BENCH_URL unless another runs beside
 * it); `headers` replace the X-Api-Key of `apiKey` (a Bearer read); `beforeMeasured` is called between the
 * warm-up and the measured run (to read a process's CPU time from there). Returns the measured run's rate and
 * latencies, and throws on any non-2xx answer or when the tweets run out.
 */
export async function wrkRun(
  {
    method,
    path,
    body,
    ids = null,
    keyed = false,
    baseUrl = BENCH_URL,
    headers: given = null,
    beforeMeasured = () => undefined,
  },
  apiKey,
) {
  const dir = mkdtempSync(join(tmpdir(), 'cp-bench-writes-'));
  const threads = 2;
  const warmupShare = LOAD.warmupSecs / (LOAD.warmupSecs + LOAD.durationSecs);
  const split = ids ? Math.ceil(ids.length * warmupShare) : 0;
  const run = async (name, runIds, secs) => {
    const idsFile = join(dir, `${name}.txt`);
    writeFileSync(idsFile, (runIds ?? []).join('\n'));
    const script = join(dir, `${name}.lua`);
    const headers = { ...(given ?? { 'X-Api-Key': apiKey }) };
    if (body !== null) headers['Content-Type'] = 'application/json';
    writeFileSync(
      script,
      `local threadIndex = 0
function setup(thread)
  thread:set("first", threadIndex)
  threadIndex = threadIndex + 1
end
function init(args)
  ids = {}
  for line in io.lines(${JSON.stringify(idsFile)}) do ids[#ids + 1] = line end
  nextIndex = first + 1
  sent = 0
end
function request()
  local path = ${JSON.stringify(path)}
  if ${runIds ? 'true' : 'false'} then
    local id = ids[nextIndex]
    if id == nil then error("out of tweets: raise TWEETS_FOR_PER_TWEET_ROUTES") end
    nextIndex = nextIndex + ${threads}
    path = string.gsub(path, "ID", id)
  end
  local headers = ${luaTable(headers)}
  sent = sent + 1
  if ${keyed ? 'true' : 'false'} then headers["Idempotency-Key"] = "${randomUUID()}-" .. first .. "-" .. sent end
  return wrk.format(${JSON.stringify(method)}, path, headers, ${body === null ? 'nil' : JSON.stringify(body)})
end
`,
    );
    const { stdout } = await promisify(execFile)('wrk', [
      `-c${LOAD.connections}`,
      `-t${threads}`,
      `-d${secs}s`,
      '--latency',
      '-s',
      script,
      baseUrl,
    ]);
    if (/Non-2xx|Socket errors|out of tweets/.test(stdout))
      throw new Error(`wrk reported errors:\n${stdout}`);
    return stdout;
  };
  try {
    await run('warmup', ids && ids.slice(0, split), LOAD.warmupSecs);
    beforeMeasured();
    const out = await run('measured', ids && ids.slice(split), LOAD.durationSecs);
    const ms = (p) => {
      const [, v, unit] = out.match(new RegExp(`\\s${p}%\\s+([\\d.]+)(us|ms|s)`));
      return Math.round(v * { us: 1, ms: 1e3, s: 1e6 }[unit]) / 1e3;
    };
    return { rps: Number(out.match(/Requests\/sec:\s+([\d.]+)/)[1]), p50Ms: ms(50), p99Ms: ms(99) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A Lua table literal of string keys and values. */
export const luaTable = (o) =>
  `{ ${Object.entries(o)
    .map(([k, v]) => `[${JSON.stringify(k)}] = ${JSON.stringify(v)}`)
    .join(', ')} }`;

export const eventsOf = async (db, communityId) =>
  (await db.query('SELECT count(*)::int AS n FROM outbox_events WHERE community_id = $1', [communityId]))
    .rows[0].n;

/** The floor's `write` line of a round (its POST /tweets), or null when the floor is not there. */
export async function writeFloor(extraEnv = {}) {
  if (!floorPresent()) return { floor: null, lines: [] };
  const out = await runFloor(
    'floor-read.mjs',
    { VARIANTS: 'write', ROUNDS, ...extraEnv },
    { allLines: true },
  );
  return { floor: figures(out.lines, 'POST /tweets'), lines: out.lines };
}
