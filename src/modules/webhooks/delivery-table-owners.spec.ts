import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The delivery log's table is read and written by its stores only (src/modules/webhooks/worker/README.md,
 * "State"): each statement has one home, and a service that needs the table calls one of these.
 */
const DELIVERY_STORES = [
  'src/modules/webhooks/delivery-log.store.ts', // the API's paged log and last-day outcomes
  'src/modules/webhooks/requested-attempts.store.ts', // resend, recover, the test route's probe
  'src/modules/webhooks/worker/outbox.store.ts', // the relay's first attempts, the outbox pruner's check
  'src/modules/webhooks/worker/delivery-attempts.store.ts', // claim, finish, cancel
  'src/modules/webhooks/worker/delivery-sweep.store.ts', // the sweep, the overdue gauge
];

/** SQL naming the tables, or Prisma's delegates of them. */
const TOUCHES_DELIVERIES = /\bwebhook_deliver(ies|y_counters)\b|\.webhookDelivery(Counter)?\b/;

const root = join(__dirname, '../../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

describe('webhook_deliveries has its stores as its only owners', () => {
  const touching = sourceFiles(join(root, 'src'))
    .filter((file) => TOUCHES_DELIVERIES.test(readFileSync(file, 'utf8')))
    .map((file) => relative(root, file).split('\\').join('/'))
    .sort();

  it('no other file of src/ names the table or its Prisma delegate', () => {
    expect(touching).toEqual([...DELIVERY_STORES].sort());
  });

  it('recognises SQL and Prisma delegates alike', () => {
    expect(TOUCHES_DELIVERIES.test('SELECT 1 FROM webhook_deliveries d')).toBe(true);
    expect(TOUCHES_DELIVERIES.test('FROM webhook_delivery_counters')).toBe(true);
    expect(TOUCHES_DELIVERIES.test('this.prisma.webhookDelivery.updateMany(')).toBe(true);
    // a metric's name is not the table
    expect(TOUCHES_DELIVERIES.test("'webhook_deliveries_overdue'")).toBe(false);
  });
});
