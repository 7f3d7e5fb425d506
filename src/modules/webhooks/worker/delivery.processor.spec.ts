import { loadConfig } from '../../../config/app-config';
import type { DeliveryJobData } from '../core/delivery-job';
import type { AttemptClaim } from './attempt-claim';
import { DeliveryProcessor } from './delivery.processor';
import type { EarlyWork } from './endpoint-slots';

/** An attempt the relay wrote claimed, run by its worker only when its endpoint has a free slot. */
describe('DeliveryProcessor.runIfSlotFree with the relay’s claim', () => {
  const job = {
    communityId: 'c',
    endpointId: 'e',
    messageId: 'm',
    eventType: 'tweet.created',
    attempt: 1,
  } as DeliveryJobData;
  const claim = { deliveryId: 'd', endpoint: null } as unknown as AttemptClaim;

  /** The processor with an endpoint whose slot `noSlot` refuses, either before its early work or after. */
  function setUp(noSlot: 'before-early-work' | 'after-early-work') {
    const unclaimed: string[] = [];
    const deliveries = { unclaim: async (id: string) => void unclaimed.push(id) };
    const slots = {
      runIfFree: async (_endpointId: string, _work: unknown, early: EarlyWork) => {
        if (noSlot === 'after-early-work') {
          early.start();
          await early.undo();
        }
        return false;
      },
    };
    const config = loadConfig({ ...process.env }).config;
    const processor = new DeliveryProcessor(
      deliveries as never,
      {} as never,
      {} as never,
      {} as never,
      {} as never,
      {} as never,
      slots as never,
      {} as never,
      {} as never,
      config,
    );
    return { processor, unclaimed };
  }

  it.each(['before-early-work', 'after-early-work'] as const)(
    'gives the claim back once when the endpoint has no free slot (refused %s), so the queued job can claim it',
    async (noSlot) => {
      const { processor, unclaimed } = setUp(noSlot);
      expect(await processor.runIfSlotFree(job, claim)).toBe(false);
      expect(unclaimed).toEqual(['d']);
    },
  );
});
