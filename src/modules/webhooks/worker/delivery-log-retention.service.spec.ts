import { pauseAfterChunkMs } from './delivery-log-retention.service';

/** The prune's pacing (docs/api.md#retention-of-the-delivery-log): it works at most its share of the time. */
describe('pauseAfterChunkMs', () => {
  it('pauses three times the work at 25%, as long as the work at 50%, and not at all at 100%', () => {
    expect(pauseAfterChunkMs(40, 25)).toBe(120);
    expect(pauseAfterChunkMs(40, 50)).toBe(40);
    expect(pauseAfterChunkMs(40, 100)).toBe(0);
  });

  it('keeps the work within its share over any run of chunks', () => {
    const chunks = [3, 17, 250, 40, 9];
    const worked = chunks.reduce((a, b) => a + b, 0);
    const paused = chunks.reduce((sum, ms) => sum + pauseAfterChunkMs(ms, 10), 0);
    expect(worked / (worked + paused)).toBeCloseTo(0.1, 2);
  });
});
