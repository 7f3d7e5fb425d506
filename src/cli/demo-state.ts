import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** Where the demo's local receiver listens; the seed points demo-pro's endpoint here (development only). */
export const DEMO_RECEIVER_PORT = 4000;
export const DEMO_RECEIVER_URL = `http://127.0.0.1:${DEMO_RECEIVER_PORT}/webhooks`;

/**
 * What a newcomer needs again after a restart, written by the seed (and refreshed by `npm start`)
 * OUTSIDE the repository: it holds the demo API key and the endpoint's signing secret in clear.
 * Development data only; the file is created readable by its owner alone.
 */
export interface DemoState {
  /** host/database of DATABASE_URL: a state file of another database is never shown */
  database: string;
  password: string;
  communities: { id: string; slug: string; plan: string }[];
  logins: { email: string; role: string }[];
  platformAdmin: string;
  /** the community a login lands in when it names none (the first one each user joined) */
  defaultCommunity: string;
  apiKey: { key: string; communityId: string; community: string; actsAs: string };
  endpoint?: { id: string; communityId: string; url: string; events: string[]; secrets: string[] };
  writtenAt: string;
}

/**
 * DEMO_STATE_FILE, else $XDG_STATE_HOME/community-platform/demo.json, else
 * ~/.community-platform/demo.json.
 */
export function demoStatePath(env: Record<string, string | undefined> = process.env): string {
  if (env.DEMO_STATE_FILE) return env.DEMO_STATE_FILE;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'community-platform', 'demo.json');
  return join(homedir(), '.community-platform', 'demo.json');
}

/** host:port/database of a PostgreSQL URL, without credentials. */
export function databaseOf(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  return `${url.host}${url.pathname}`;
}

export function writeDemoState(path: string, state: DemoState): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

/** The state of this database, or null (no file, unreadable, or written for another database). */
export function readDemoState(path: string, databaseUrl?: string): DemoState | null {
  let state: DemoState;
  try {
    state = JSON.parse(readFileSync(path, 'utf8')) as DemoState;
  } catch {
    return null;
  }
  if (databaseUrl !== undefined && state.database !== databaseOf(databaseUrl)) return null;
  return state;
}
