import { readFileSync } from 'node:fs';
import { MALLOC_ENVIRONMENT } from '../../src/bootstrap/memory-flags';
import { createTestApp, TestApp } from '../utils/app';
import { addMember, createCommunity, createUser, TEST_PASSWORD } from '../utils/factories';
import { createIsolatedDatabase, IsolatedDatabase } from '../utils/isolated-database';
import { ChildWorker, sparePort, spawnCompiled } from './processes';
import { ARGON2_OPTIONS } from '../../src/modules/auth/password.service';

jest.setTimeout(120_000);

/** Resident memory of a process now, in MiB (VmRSS, as the benchmarks read VmHWM). */
function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS'));
  return Number(line?.replace(/\D+/g, '')) / 1024;
}

/** The memory one argon2 hash or verification takes (memoryCost is in KiB). */
const ARGON2_BLOCK_MIB = ARGON2_OPTIONS.memoryCost / 1024;

/**
 * The compiled API as the launchers start it (MALLOC_ENVIRONMENT, src/bootstrap/memory-flags.ts)
 * and, as the control, without it: logins spread over the four libuv threads, each running one
 * argon2 verification of ARGON2_BLOCK_MIB. With glibc's default (rising) mmap threshold every thread
 * keeps its block for good; with the fixed threshold they are given back.
 */
describe('the API gives back the memory of its logins', () => {
  let db: IsolatedDatabase;
  let seeder: TestApp;
  let login: string;

  beforeAll(async () => {
    db = await createIsolatedDatabase('api_memory');
    seeder = await createTestApp({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: db.redisKeyPrefix });
    const owner = await createUser(seeder.app);
    const community = await createCommunity(seeder.app);
    await addMember(seeder.app, community.id, owner.id, 'OWNER');
    login = JSON.stringify({ email: owner.email, password: TEST_PASSWORD, communityId: community.id });
  });

  afterAll(async () => {
    await seeder?.close();
    await db?.drop();
  });

  /** RSS growth of a fresh API over 4 rounds of 4 concurrent logins, in MiB. */
  async function growthOverLogins(withMallocEnvironment: boolean): Promise<number> {
    const port = await sparePort();
    const env: Record<string, string | undefined> = {
      DATABASE_URL: db.url,
      REDIS_KEY_PREFIX: db.redisKeyPrefix,
      PORT: String(port),
      HOST: '127.0.0.1',
      METRICS_PORT: '0',
      // the control unsets what spawnCompiled passes on, as a launcher without it would
      ...(withMallocEnvironment
        ? {}
        : Object.fromEntries(Object.keys(MALLOC_ENVIRONMENT).map((n) => [n, undefined]))),
    };
    let api: ChildWorker | undefined;
    try {
      api = spawnCompiled('main.js', env);
      await api.ready;
      const pid = api.process.pid!;
      const post = () =>
        fetch(`http://127.0.0.1:${port}/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: login,
        }).then((res) => res.status);
      expect(await post()).toBe(200); // the first request loads what every later one uses
      const before = rssMiB(pid);
      for (let round = 0; round < 4; round++)
        expect(await Promise.all([post(), post(), post(), post()])).toEqual([200, 200, 200, 200]);
      return rssMiB(pid) - before;
    } finally {
      api?.process.kill('SIGKILL');
      await api?.exited;
    }
  }

  it('keeps less than one argon2 block after 16 logins, where the default keeps one per thread', async () => {
    const control = await growthOverLogins(false);
    const launched = await growthOverLogins(true);
    expect(control).toBeGreaterThan(2 * ARGON2_BLOCK_MIB);
    expect(launched).toBeLessThan(ARGON2_BLOCK_MIB);
  });
});
