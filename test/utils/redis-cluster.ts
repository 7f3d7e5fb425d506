import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from './worker';

const run = promisify(execFile);

export interface RedisClusterOptions {
  /** 3 by default: the fewest masters `redis-cli --cluster create` accepts */
  masters?: number;
  replicasPerMaster?: number;
  /**
   * cluster-node-timeout: how long a silent master stays a master. Short, so a killed master's
   * replica takes over within a couple of seconds in a test; long enough that a busy 2-core box
   * does not fail a live master over by itself.
   */
  nodeTimeoutMs?: number;
}

export interface RedisCluster {
  /** What REDIS_CLUSTER_NODES takes: every node as host:port, comma separated. */
  nodes: string;
  ports: number[];
  /** Ports of the nodes that are masters now (asked of a live node). */
  masters: () => Promise<number[]>;
  /** The port of a replica of the master on `masterPort`. */
  replicaOf: (masterPort: number) => Promise<number>;
  /** The port of the master serving `key`'s slot now. */
  masterFor: (key: string) => Promise<number>;
  /**
   * A graceful hand-over: CLUSTER FAILOVER on a replica of `masterPort`; resolves with the new
   * master's port once the whole cluster agrees and is ok again.
   */
  failover: (masterPort: number) => Promise<number>;
  /**
   * SIGKILL of the master on `masterPort`; resolves once its replica has been elected and the cluster
   * is ok again, with the replica's port and how long the cluster took (kill → cluster_state:ok).
   */
  killMaster: (masterPort: number) => Promise<{ promoted: number; ms: number }>;
  /** Starts a killed node again from its own nodes.conf: it rejoins (as a replica, if it was replaced). */
  restart: (port: number) => Promise<void>;
  /** `redis-cli -p port args…`, its output. */
  cli: (port: number, ...args: string[]) => Promise<string>;
  /** Kills every node by its PID and removes the cluster's temporary directory. */
  stop: () => Promise<void>;
}

interface Node {
  port: number;
  dir: string;
  child?: ChildProcess;
  exited?: Promise<void>;
}

/**
 * A Redis Cluster of the test's own from the `redis-server` binary: `masters` masters with
 * `replicasPerMaster` replicas each, on spare ports, no persistence, in a temporary directory. Resolves
 * once every node reports cluster_state:ok and every replica is in sync with its master.
 */
export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const masters = options.masters ?? 3;
  const replicas = options.replicasPerMaster ?? 1;
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 1000;
  const base = mkdtempSync(join(tmpdir(), 'cp-redis-cluster-'));
  const nodes: Node[] = [];
  const killAll = (): void => nodes.forEach((n) => n.child?.kill('SIGKILL'));
  // a test process that dies without calling stop() leaves no redis-server and no directory behind
  const onExit = (): void => {
    killAll();
    rmSync(base, { recursive: true, force: true });
  };
  process.once('exit', onExit);

  const cli = async (port: number, ...args: string[]): Promise<string> =>
    (await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 5000 })).stdout;

  const launch = async (node: Node): Promise<void> => {
    const settings: Record<string, string> = {
      port: String(node.port),
      bind: '127.0.0.1',
      dir: node.dir,
      'cluster-enabled': 'yes',
      'cluster-config-file': 'nodes.conf',
      'cluster-node-timeout': String(nodeTimeoutMs),
      // a replica may always take over, however long it was cut off (a test kills on purpose)
      'cluster-replica-validity-factor': '0',
      save: '',
      appendonly: 'no',
    };
    const args = Object.entries(settings).flatMap(([name, value]) => [`--${name}`, value]);
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    node.child = child;
    node.exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    await waitFor(
      `redis-server on port ${node.port}`,
      () => output.includes('Ready to accept connections'),
      10_000,
    );
  };

  const alive = (): Node[] =>
    nodes.filter((n) => n.child && n.child.exitCode === null && n.child.signalCode === null);

  const roles = async (): Promise<
    Array<{ port: number; master: boolean; of?: string; id: string; failed: boolean }>
  > => {
    const lines = (await cli(alive()[0].port, 'cluster', 'nodes')).trim().split('\n');
    return lines.map((line) => {
      const [id, address, flags, of] = line.split(' ');
      return {
        id,
        port: Number(address.split('@')[0].split(':')[1]),
        master: flags.split(',').includes('master'),
        of: of === '-' ? undefined : of,
        failed: /fail/.test(flags),
      };
    });
  };

  /**
   * Every live node says ok, sees no failure flag and the same masters, slots and replicas as every
   * other node (gossip takes a moment after a failover); every replica is in sync with its master.
   */
  const settled = async (): Promise<boolean> => {
    const views = new Set<string>();
    for (const node of alive()) {
      if (!(await cli(node.port, 'cluster', 'info')).includes('cluster_state:ok')) return false;
      const table = await cli(node.port, 'cluster', 'nodes');
      if (/fail|handshake|noaddr/.test(table)) return false;
      views.add(topology(table));
      const replication = await cli(node.port, 'info', 'replication');
      if (
        replication.includes('role:slave') &&
        (!replication.includes('master_link_status:up') || replication.includes('master_sync_in_progress:1'))
      ) {
        return false;
      }
    }
    return views.size === 1;
  };

  try {
    for (let i = 0; i < masters * (1 + replicas); i++) {
      const port = await clusterPort(nodes.map((n) => n.port));
      const dir = join(base, String(port));
      mkdirSync(dir);
      nodes.push({ port, dir });
    }
    await Promise.all(nodes.map(launch));
    await run(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...nodes.map((n) => `127.0.0.1:${n.port}`),
        '--cluster-replicas',
        String(replicas),
        '--cluster-yes',
      ],
      { timeout: 30_000 },
    );
    await waitFor('cluster_state:ok on every node, replicas in sync', settled, 30_000, 100);
  } catch (err) {
    killAll();
    await Promise.all(nodes.map((n) => n.exited));
    rmSync(base, { recursive: true, force: true });
    process.removeListener('exit', onExit);
    throw err;
  }

  const nodeAt = (port: number): Node => {
    const node = nodes.find((n) => n.port === port);
    if (!node) throw new Error(`no node of this cluster on port ${port}`);
    return node;
  };

  const replicaOf = async (masterPort: number): Promise<number> => {
    const table = await roles();
    const master = table.find((r) => r.port === masterPort && r.master);
    const replica = table.find((r) => !r.master && !r.failed && r.of === master?.id);
    if (!master || !replica) throw new Error(`no live replica of a master on port ${masterPort}`);
    return replica.port;
  };

  const promoted = async (port: number): Promise<boolean> =>
    (await cli(port, 'info', 'replication')).includes('role:master');

  return {
    nodes: nodes.map((n) => `127.0.0.1:${n.port}`).join(','),
    ports: nodes.map((n) => n.port),
    masters: async () => (await roles()).filter((r) => r.master && !r.failed).map((r) => r.port),
    replicaOf,
    masterFor: async (key) => {
      const slot = Number((await cli(alive()[0].port, 'cluster', 'keyslot', key)).trim());
      const lines = (await cli(alive()[0].port, 'cluster', 'nodes')).trim().split('\n');
      for (const line of lines) {
        const fields = line.split(' ');
        if (!fields[2].includes('master') || /fail/.test(fields[2])) continue;
        for (const range of fields.slice(8)) {
          const [from, to = from] = range.split('-').map(Number);
          if (slot >= from && slot <= to) return Number(fields[1].split('@')[0].split(':')[1]);
        }
      }
      throw new Error(`no master serves slot ${slot}`);
    },
    failover: async (masterPort) => {
      const replica = await replicaOf(masterPort);
      await cli(replica, 'cluster', 'failover');
      await waitFor(`replica on ${replica} promoted`, () => promoted(replica), 15_000, 50);
      await waitFor('the cluster to settle after the failover', settled, 15_000, 50);
      return replica;
    },
    killMaster: async (masterPort) => {
      const replica = await replicaOf(masterPort);
      const node = nodeAt(masterPort);
      const started = Date.now();
      node.child?.kill('SIGKILL');
      await node.exited;
      await waitFor(`replica on ${replica} elected`, () => promoted(replica), 30_000, 50);
      await waitFor(
        'cluster_state:ok after the failover',
        async () => {
          for (const n of alive()) {
            if (!(await cli(n.port, 'cluster', 'info')).includes('cluster_state:ok')) return false;
          }
          return true;
        },
        30_000,
        50,
      );
      return { promoted: replica, ms: Date.now() - started };
    },
    restart: async (port) => {
      const node = nodeAt(port);
      if (alive().includes(node)) throw new Error(`node on port ${port} is running`);
      await launch(node);
      await waitFor(`node on ${port} rejoined`, settled, 30_000, 100);
    },
    cli,
    stop: async () => {
      killAll();
      await Promise.all(nodes.map((n) => n.exited));
      rmSync(base, { recursive: true, force: true });
      process.removeListener('exit', onExit);
    },
  };
}

/**
 * A port that is free and whose cluster bus port (port + 10000) is free too, below the range the
 * system hands out for outgoing connections, and not one of `taken`.
 */
async function clusterPort(taken: number[]): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (taken.some((t) => t === port || Math.abs(t - port) === 10_000)) continue;
    if ((await bindable(port)) && (await bindable(port + 10_000))) return port;
  }
  throw new Error('no spare port pair (port, port + 10000) for a Redis Cluster node');
}

/** A CLUSTER NODES answer without what differs between the nodes asked (myself, ping times). */
function topology(table: string): string {
  return table
    .trim()
    .split('\n')
    .map((line) => {
      const [id, , flags, of, , , , , ...slots] = line.split(' ');
      const role = flags.split(',').includes('master') ? 'master' : 'replica';
      return `${id} ${role} ${of} ${slots.join(' ')}`;
    })
    .sort()
    .join('\n');
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
