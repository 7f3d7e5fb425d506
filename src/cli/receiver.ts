import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { DEMO_RECEIVER_PORT, demoStatePath, readDemoState } from './demo-state';

/**
 * `npm run receiver`: a local webhook target for trying deliveries. Every request is verified with
 * the endpoint's signing secret(s) as Standard Webhooks prescribes (any live secret may have
 * signed it), then printed readably; a verified request gets the status asked for (200 unless
 * --status), an unverified one 401.
 */
export interface ReceiverOptions {
  port: number;
  host: string;
  status: number;
  secrets: string[];
  out: (line: string) => void;
}

export interface RunningReceiver {
  server: Server;
  url: string;
  close: () => Promise<void>;
}

interface EventBody {
  id?: string;
  type?: string;
  timestamp?: string;
  communityId?: string;
  data?: unknown;
}

/** Which secret, if any, signed the request; the reason when none did. */
export function verify(
  secrets: string[],
  body: string,
  headers: IncomingHttpHeaders,
): { ok: true; secret: number } | { ok: false; reason: string } {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string') flat[name] = value;
  }
  let reason = 'no secret to verify with';
  for (const [index, secret] of secrets.entries()) {
    try {
      new Webhook(secret).verify(body, flat);
      return { ok: true, secret: index };
    } catch (err) {
      reason = (err as Error).message;
    }
  }
  return { ok: false, reason };
}

/** The lines printed for one request. */
export function formatDelivery(
  body: string,
  headers: IncomingHttpHeaders,
  verdict: ReturnType<typeof verify>,
  answer: number,
  now = new Date(),
): string[] {
  let event: EventBody = {};
  try {
    event = JSON.parse(body) as EventBody;
  } catch {
    // printed raw below
  }
  const time = now.toISOString().slice(11, 23);
  const check = verdict.ok ? `verified (secret ${verdict.secret + 1})` : `NOT VERIFIED: ${verdict.reason}`;
  const data = event.data === undefined ? body : JSON.stringify(event.data, null, 2);
  return [
    `[${time}] ${event.type ?? '(no type)'}  ${event.id ?? headers['webhook-id'] ?? '(no id)'}  ${check}`,
    `  time       ${event.timestamp ?? '(none)'}`,
    ...(event.communityId ? [`  community  ${event.communityId}`] : []),
    `  data       ${data.split('\n').join('\n             ')}`,
    `  answered   ${answer}`,
    '',
  ];
}

export async function startReceiver(options: ReceiverOptions): Promise<RunningReceiver> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const verdict = verify(options.secrets, body, req.headers);
      const answer = verdict.ok ? options.status : 401;
      for (const line of formatDelivery(body, req.headers, verdict, answer)) options.out(line);
      res.writeHead(answer, { 'content-type': 'text/plain' });
      res.end(verdict.ok ? 'received' : 'signature not verified');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://${options.host}:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const USAGE = `Usage: npm run receiver -- [--port ${DEMO_RECEIVER_PORT}] [--status 200] [--secret whsec_... ...]

Listens on 127.0.0.1 for webhook deliveries, verifies each with the endpoint's signing secret(s) and
prints it. Secrets come from --secret (repeatable), else WEBHOOK_SECRETS (comma-separated), else the
demo state file that the seed writes (DEMO_STATE_FILE, default ${demoStatePath()}).
--status answers verified requests with that status (e.g. 500 or 429 to watch the retries).`;

export function parseReceiverArgs(
  argv: string[],
  env: Record<string, string | undefined>,
): { options: Omit<ReceiverOptions, 'out'>; source: string } | { help: true } | { error: string } {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        status: { type: 'string' },
        secret: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (err) {
    return { error: (err as Error).message };
  }
  if (values.help) return { help: true };
  const port = Number(values.port ?? env.RECEIVER_PORT ?? DEMO_RECEIVER_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) return { error: '--port must be 0-65535' };
  const status = Number(values.status ?? 200);
  if (!Number.isInteger(status) || status < 100 || status > 599) return { error: '--status must be 100-599' };
  let secrets = values.secret ?? [];
  let source = '--secret';
  if (secrets.length === 0 && env.WEBHOOK_SECRETS) {
    secrets = env.WEBHOOK_SECRETS.split(',').map((s) => s.trim());
    source = 'WEBHOOK_SECRETS';
  }
  if (secrets.length === 0) {
    const path = demoStatePath(env);
    secrets = readDemoState(path)?.endpoint?.secrets ?? [];
    source = path;
  }
  if (secrets.length === 0) {
    return {
      error:
        `No signing secret: none given with --secret or WEBHOOK_SECRETS, and ${demoStatePath(env)} has none ` +
        '(npm start writes it when it seeds the demo in development).',
    };
  }
  return { options: { port, host: '127.0.0.1', status, secrets }, source };
}

async function main(): Promise<number> {
  const parsed = parseReceiverArgs(process.argv.slice(2), process.env);
  if ('help' in parsed) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if ('error' in parsed) {
    process.stderr.write(`${parsed.error}\n\n${USAGE}\n`);
    return 1;
  }
  try {
    const receiver = await startReceiver({ ...parsed.options, out: (l) => process.stdout.write(`${l}\n`) });
    process.stdout.write(
      `Receiving webhooks at ${receiver.url}/webhooks (any path), verifying with ${parsed.options.secrets.length} ` +
        `secret(s) from ${parsed.source}; answering ${parsed.options.status}. Ctrl-C stops.\n\n`,
    );
  } catch (err) {
    process.stderr.write(`Cannot listen on port ${parsed.options.port}: ${(err as Error).message}\n`);
    return 1;
  }
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve(0));
    process.once('SIGTERM', () => resolve(0));
  });
}

if (require.main === module) void main().then((code) => process.exit(code));
