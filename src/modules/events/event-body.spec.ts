import { decodeTime } from 'ulid';
import { newMessageId } from './event-body';

describe('newMessageId', () => {
  it('gives distinct ULIDs in the order made, across refills of the random pool', () => {
    // 10,000 ids draw far more than the pool's 4 KiB: several refills
    const ids = Array.from({ length: 10_000 }, () => newMessageId());
    for (const id of ids) expect(id).toMatch(/^msg_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(Math.abs(decodeTime(ids[0].slice(4)) - Date.now())).toBeLessThan(60_000);
  });
});
