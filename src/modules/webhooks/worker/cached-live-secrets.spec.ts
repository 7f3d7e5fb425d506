import type { LiveSecrets } from '../core/secrets/webhook-secrets.service';
import { CachedLiveSecrets } from './cached-live-secrets';

describe('CachedLiveSecrets', () => {
  function counting(answers: Record<string, LiveSecrets>) {
    const reads: string[] = [];
    return {
      reads,
      source: {
        readLive: async (communityId: string, endpointId: string) => {
          reads.push(endpointId);
          if (!answers[endpointId]) throw new Error('database down');
          return answers[endpointId];
        },
      },
    };
  }
  const live = (secrets: string[], version: number, validUntil: number | null = null): LiveSecrets => ({
    secrets,
    version,
    validUntil,
  });

  it('reads an endpoint once per TTL and again after it', async () => {
    let now = 0;
    const answers = { e1: live(['whsec_a'], 1) };
    const { reads, source } = counting(answers);
    const cache = new CachedLiveSecrets(source, 1000, () => now);

    expect(await cache.liveSecrets('c', 'e1')).toEqual(['whsec_a']);
    now = 999;
    expect(await cache.liveSecrets('c', 'e1')).toEqual(['whsec_a']);
    expect(reads).toEqual(['e1']);

    answers.e1 = live(['whsec_b', 'whsec_a'], 2);
    now = 1000;
    expect(await cache.liveSecrets('c', 'e1')).toEqual(['whsec_b', 'whsec_a']);
    expect(reads).toEqual(['e1', 'e1']);
  });

  it('keeps endpoints apart and does not remember a failed read', async () => {
    const { reads, source } = counting({ e1: live(['whsec_a'], 1) });
    const cache = new CachedLiveSecrets(source, 1000, () => 0);

    await expect(cache.liveSecrets('c', 'e2')).rejects.toThrow('database down');
    await expect(cache.liveSecrets('c', 'e2')).rejects.toThrow('database down');
    expect(await cache.liveSecrets('c', 'e1')).toEqual(['whsec_a']);
    expect(reads).toEqual(['e2', 'e2', 'e1']);
  });

  it('reads again within the TTL when a claim names a newer version, and only then', async () => {
    const answers = { e1: live(['whsec_a'], 1) };
    const { reads, source } = counting(answers);
    const cache = new CachedLiveSecrets(source, 1000, () => 0);
    expect(await cache.liveSecrets('c', 'e1')).toEqual(['whsec_a']);

    // the claim saw the version the copy holds (or an older one, or none): the copy stands
    for (const version of [1, 0, null]) await cache.atLeast('c', 'e1', version);
    expect(reads).toEqual(['e1']);

    // a rotation committed before the claim: the copy is read again and the next send signs with both
    answers.e1 = live(['whsec_b', 'whsec_a'], 2);
    await cache.atLeast('c', 'e1', 2);
    expect(await cache.liveSecrets('c', 'e1')).toEqual(['whsec_b', 'whsec_a']);
    expect(reads).toEqual(['e1', 'e1']);
  });

  it('re-reads when a read still in flight started before the rotation', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let current = live(['whsec_a'], 1);
    const source = {
      readLive: async () => {
        const answer = current;
        await gate;
        return answer;
      },
    };
    const cache = new CachedLiveSecrets(source, 1000, () => 0);
    const early = cache.liveSecrets('c', 'e1');
    current = live(['whsec_b', 'whsec_a'], 2);
    const ensured = cache.atLeast('c', 'e1', 2);
    release();
    expect(await early).toEqual(['whsec_a']);
    await ensured;
    expect(await cache.liveSecrets('c', 'e1')).toEqual(['whsec_b', 'whsec_a']);
  });

  it('stops signing with a secret once it expires, within the TTL', async () => {
    let now = 0;
    const answers = { e1: live(['whsec_b', 'whsec_a'], 2, 500) };
    const { reads, source } = counting(answers);
    const cache = new CachedLiveSecrets(source, 1000, () => now);
    expect(await cache.liveSecrets('c', 'e1')).toEqual(['whsec_b', 'whsec_a']);
    now = 499;
    expect(await cache.liveSecrets('c', 'e1')).toEqual(['whsec_b', 'whsec_a']);
    answers.e1 = live(['whsec_b'], 2);
    now = 500;
    expect(await cache.liveSecrets('c', 'e1')).toEqual(['whsec_b']);
    expect(reads).toEqual(['e1', 'e1']);
  });
});
