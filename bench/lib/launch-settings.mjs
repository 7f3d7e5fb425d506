// glibc's malloc settings that `npm start`, `npm run start:api` / `start:worker` and the Docker image
// give the API and the worker (src/bootstrap/memory-flags.ts), read from the build under test, so a
// bench runs it as production does; a build from before them gets none.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const require = createRequire(import.meta.url);

export function mallocEnvironment(dist) {
  try {
    return require(resolve(dist, 'bootstrap/memory-flags.js')).MALLOC_ENVIRONMENT ?? {};
  } catch {
    return {};
  }
}
