import { CachedLiveSecrets } from './cached-live-secrets';

describe('CachedLiveSecrets', () => {
  function counting(answers: Record<string, string[]>) {
    const reads: string[] = [];
    return {
      reads,
      source: {
        liveSecrets: async (communityId: string, endpointId: string) => {
          reads.push(endpointId);
          if (!answers[endpointId]) throw new Error('database down');
          return answers[endpointId];
        },
      },
    };
  }

  it('reads an endpoint once per TTL and again after it', async () => {
    let now = 0;
    const answers = { e1: ['whsec_a'] };
    const { reads, source } = counting(answers);
    const cache = new CachedLiveSecrets(source, 1000, () => now);

    expect(await cache.liveSecrets('c', 'e1')).toEqual(['whsec_a']);
    now = 999;
    expect(await cache.liveSecrets('c', 'e1')).toEqual(['whsec_a']);
    expect(reads).toEqual(['e1']);

    answers.e1 = ['whsec_b', 'whsec_a'];
    now = 1000;
    expect(await cache.liveSecrets('c', 'e1')).toEqual(['whsec_b', 'whsec_a']);
    expect(reads).toEqual(['e1', 'e1']);
  });

  it('keeps endpoints apart and does not remember a failed read', async () => {
    const { reads, source } = counting({ e1: ['whsec_a'] });
    const cache = new CachedLiveSecrets(source, 1000, () => 0);

    await expect(cache.liveSecrets('c', 'e2')).rejects.toThrow('database down');
    await expect(cache.liveSecrets('c', 'e2')).rejects.toThrow('database down');
    expect(await cache.liveSecrets('c', 'e1')).toEqual(['whsec_a']);
    expect(reads).toEqual(['e2', 'e2', 'e1']);
  });
});
