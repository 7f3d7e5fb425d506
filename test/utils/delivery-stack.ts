import { Client } from 'pg';
import type { DeliveryJobData } from '../../src/modules/webhooks/core/delivery-job';
import { DeliveryQueue } from '../../src/modules/webhooks/core/delivery-queue.service';
import { createTestApp, TestApp } from './app';
import { Receiver, startReceiver } from './webhook-receiver';
import { unique } from './factories';
import { createEndpoint, DELIVERY_TEST_ENV, startTestWorker, TestWorker } from './worker';

export interface DeliveryStack {
  api: TestApp;
  worker: TestWorker;
  receiver: Receiver;
}

export interface DeliveryStackOptions {
  /** settings over DELIVERY_TEST_ENV for the API and the worker alike */
  env?: Record<string, string>;
  /** settings over those for the API only (a rule the API applies and the worker never reads) */
  apiEnv?: Record<string, string>;
}

/**
 * The API and a worker in-process (DELIVERY_TEST_ENV, with `options` over it) and a local receiver, for
 * the tests of one describe block: started before its first test, stopped after its last. Read them from
 * the returned object inside the tests (they exist once beforeAll ran).
 */
export function useDeliveryStack(options: DeliveryStackOptions = {}): DeliveryStack {
  const stack = {} as DeliveryStack;
  const env = { ...DELIVERY_TEST_ENV, ...options.env };
  beforeAll(async () => {
    stack.api = await createTestApp({ ...env, ...options.apiEnv });
    stack.worker = await startTestWorker(env);
    stack.receiver = await startReceiver();
  });
  afterAll(async () => {
    await stack.worker?.stop();
    await stack.api?.close();
    await stack.receiver?.close();
  });
  return stack;
}

/**
 * An endpoint (createEndpoint: a known secret) at a path of its own on the receiver,
 * `${receiver.url}/<name>-<random>`, subscribed to `events` (tweet.created by default).
 */
export async function endpointAtReceiver(
  { api, receiver }: { api: TestApp; receiver: Receiver },
  communityId: string,
  options: { name?: string; events?: string[]; isActive?: boolean; disabledAt?: Date } = {},
): Promise<{ id: string; secret: string; path: string }> {
  const { name = 'hook', events = ['tweet.created'], ...state } = options;
  const path = `/${unique(name)}`;
  const endpoint = await createEndpoint(api, communityId, { url: receiver.url + path, events, ...state });
  return { ...endpoint, path };
}

export interface QueuedJobs {
  /** each job the API queued, and whether another connection (a worker's) saw its attempt's row by then */
  queued: { job: DeliveryJobData; visible: boolean }[];
  /** stops watching and closes the watching connection */
  stop: () => Promise<void>;
}

/**
 * Watches the jobs the API queues (DeliveryQueue.addAll) and, before each goes to Redis, looks for its
 * attempt's row from a connection of its own, as a worker would: the request's own connection would
 * see its uncommitted rows. A job queued before its row commits is one a worker may find no row for.
 */
export async function watchQueuedJobs(api: TestApp): Promise<QueuedJobs> {
  const queue = api.app.get(DeliveryQueue);
  const outside = new Client({ connectionString: api.config.DATABASE_URL });
  await outside.connect();
  const queued: QueuedJobs['queued'] = [];
  const addAll = queue.addAll.bind(queue);
  const spy = jest.spyOn(queue, 'addAll').mockImplementation(async (jobs, delayMs) => {
    for (const job of jobs) {
      const { rowCount } = await outside.query(
        'SELECT 1 FROM webhook_deliveries WHERE endpoint_id = $1 AND message_id = $2 AND attempt = $3',
        [job.endpointId, job.messageId, job.attempt],
      );
      queued.push({ job, visible: rowCount === 1 });
    }
    return addAll(jobs, delayMs);
  });
  return {
    queued,
    stop: async () => {
      spy.mockRestore();
      await outside.end();
    },
  };
}
