// What `npm start`, `npm run start:api` / `start:worker` and the Docker image give the API and the
// worker (src/bootstrap/memory-flags.ts): glibc's malloc settings and each process's node flags, read
// from the build under test, so a bench runs it as production does; a build from before them gets none.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const require = createRequire(import.meta.url);

function memoryFlags(dist) {
  try {
    return require(resolve(dist, 'bootstrap/memory-flags.js'));
  } catch {
    return {};
  }
}

export function mallocEnvironment(dist) {
  return memoryFlags(dist).MALLOC_ENVIRONMENT ?? {};
}

/** The node flags the launchers put before `role`'s entry file ('api' or 'worker'). */
export function launchNodeFlags(dist, role) {
  return [...(memoryFlags(dist).LAUNCH_NODE_FLAGS?.[role] ?? [])];
}
