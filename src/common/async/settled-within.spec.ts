import { settledWithin } from './settled-within';

describe('settledWithin', () => {
  it('is true for a promise that fulfils or rejects in time', async () => {
    await expect(settledWithin(Promise.resolve('x'), 1_000)).resolves.toBe(true);
    await expect(settledWithin(Promise.reject(new Error('no')), 1_000)).resolves.toBe(true);
  });

  it('is false once the wait runs out on a promise that never settles', async () => {
    await expect(settledWithin(new Promise(() => undefined), 1)).resolves.toBe(false);
  });
});
