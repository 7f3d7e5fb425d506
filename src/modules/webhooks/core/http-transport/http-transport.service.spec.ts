import { SecretKeyRing } from '../../../../common/crypto/secret-cipher';
import { loadConfig } from '../../../../config/app-config';
import { sealAuth } from './endpoint-auth';
import type { EndpointTransportStore } from './endpoint-transport.store';
import { HttpTransport } from './http-transport.service';

describe('HttpTransport.settingsOf', () => {
  it('reads an endpoint’s tls and auth once per version a claim names, and never for version 0', async () => {
    let stored = 1;
    const reads: string[] = [];
    const store = {
      transportOf: async (_communityId: string, id: string) => {
        reads.push(id);
        return { version: stored, tls: null, auth: null, destination: null };
      },
    } as unknown as EndpointTransportStore;
    const { config } = loadConfig({ ...process.env });
    const transport = new HttpTransport(config, async () => [], store);
    try {
      expect(await transport.settingsOf('c', 'e', 0)).toEqual({
        version: 0,
        tls: null,
        auth: null,
        destination: null,
      });
      expect(reads).toEqual([]);
      await Promise.all([transport.settingsOf('c', 'e', 1), transport.settingsOf('c', 'e', 1)]);
      expect(await transport.settingsOf('c', 'e', 1)).toMatchObject({ version: 1 });
      expect(reads).toEqual(['e']);
      // a PATCH made version 2: the first claim that reads it reloads, later ones use the copy
      stored = 2;
      expect(await transport.settingsOf('c', 'e', 2)).toMatchObject({ version: 2 });
      expect(await transport.settingsOf('c', 'e', 2)).toMatchObject({ version: 2 });
      expect(reads).toEqual(['e', 'e']);
    } finally {
      await transport.onModuleDestroy();
    }
  });
});

describe('HttpTransport.prepare', () => {
  it('opens an endpoint’s OAuth client once per version of its settings, not once per delivery', async () => {
    const { config } = loadConfig({ ...process.env });
    const ring = new SecretKeyRing(config.webhookEncryptionKeys);
    const transport = new HttpTransport(config, async () => [], {} as EndpointTransportStore);
    const auth = (clientSecret: string) =>
      sealAuth(
        ring,
        {
          type: 'oauth2_client_credentials',
          tokenUrl: 'https://login.example/t',
          clientId: 'c',
          clientSecret,
        },
        null,
      );
    try {
      const first = transport.prepare('e', { version: 1, tls: null, auth: auth('first-secret') });
      const again = transport.prepare('e', { version: 1, tls: null, auth: auth('first-secret') });
      // the same object: the secret was not decrypted again
      expect(again.oauth?.client).toBe(first.oauth?.client);
      expect(first.oauth).toMatchObject({ key: 'e:1', client: { clientSecret: 'first-secret' } });
      // a new version (a PATCH of tls or auth) opens the new secret
      const changed = transport.prepare('e', { version: 2, tls: null, auth: auth('second-secret') });
      expect(changed.oauth).toMatchObject({ key: 'e:2', client: { clientSecret: 'second-secret' } });
    } finally {
      await transport.onModuleDestroy();
    }
  });
});
