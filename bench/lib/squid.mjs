// Debian's squid as a forward proxy for the benches (bench/enterprise-doors.mjs), on a spare port, its access
// log in a directory of its own; started in the foreground (-N) as a child the bench kills when it exits.
// The same configuration as the tests' (test/utils/enterprise-peers.ts): no cache, every request allowed.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ownChild } from './children.mjs';
import { until } from './delivery-harness.mjs';

async function sparePort() {
  const server = createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

async function listening(port) {
  const probe = createServer();
  const free = await new Promise((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
  return !free;
}

export async function startSquid() {
  if (!existsSync('/usr/sbin/squid')) throw new Error('squid is missing: apt-get install squid');
  const dir = mkdtempSync(join(tmpdir(), 'bench-squid-'));
  // squid started as root writes its logs as the `proxy` user
  chmodSync(dir, 0o777);
  const port = await sparePort();
  const conf = join(dir, 'squid.conf');
  const log = join(dir, 'access.log');
  writeFileSync(
    conf,
    [
      `http_port 127.0.0.1:${port}`,
      `pid_filename ${join(dir, 'squid.pid')}`,
      `access_log stdio:${log}`,
      `cache_log ${join(dir, 'cache.log')}`,
      'cache deny all',
      'cache_mem 8 MB',
      'pinger_enable off',
      'http_access allow all',
      'shutdown_lifetime 0 seconds',
      `coredump_dir ${dir}`,
      'logfile_rotate 0',
      '',
    ].join('\n'),
  );
  const child = ownChild(spawn('/usr/sbin/squid', ['-N', '-f', conf], { stdio: 'ignore' }));
  const exited = new Promise((r) => child.once('exit', r));
  await until('squid to listen', () => listening(port), 15_000, 100);
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    /** the tunnels squid has logged (it logs one when it closes) */
    tunnels: () =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .split('\n')
            .filter((line) => / CONNECT /.test(line)).length
        : 0,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
