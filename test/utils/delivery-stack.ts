import { createTestApp, TestApp } from './app';
import { Receiver, startReceiver } from './webhook-receiver';
import { DELIVERY_TEST_ENV, startTestWorker, TestWorker } from './worker';

export interface DeliveryStack {
  api: TestApp;
  worker: TestWorker;
  receiver: Receiver;
}

/**
 * The API and a worker in-process (DELIVERY_TEST_ENV) and a local receiver, for the tests of one
 * describe block: started before its first test, stopped after its last. Read them from the
 * returned object inside the tests (they exist once beforeAll ran).
 */
export function useDeliveryStack(): DeliveryStack {
  const stack = {} as DeliveryStack;
  beforeAll(async () => {
    stack.api = await createTestApp(DELIVERY_TEST_ENV);
    stack.worker = await startTestWorker();
    stack.receiver = await startReceiver();
  });
  afterAll(async () => {
    await stack.worker?.stop();
    await stack.api?.close();
    await stack.receiver?.close();
  });
  return stack;
}
