import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** `name/version` of the service's package.json, found from here upwards (same in src/ and dist/). */
function readUserAgent(): string {
  let dir = __dirname;
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'community-platform') return `${pkg.name}/${pkg.version ?? '0.0.0'}`;
    }
    const parent = dirname(dir);
    if (parent === dir) return 'community-platform/0.0.0';
    dir = parent;
  }
}

export const WEBHOOK_USER_AGENT = readUserAgent();
