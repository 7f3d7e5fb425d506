import { SecretKeyRing } from '../../../../common/crypto/secret-cipher';
import { randomBytes } from 'node:crypto';
import {
  brokerNames,
  DestinationProblem,
  keepMaskedCredentials,
  maskedCredentialsUrl,
  openCredentials,
  parseBrokerUrl,
  sealCredentials,
} from './broker-destination';

function problem(work: () => unknown): { field: string; message: string } {
  try {
    work();
  } catch (err) {
    if (err instanceof DestinationProblem) return { field: err.field, message: err.message };
    throw err;
  }
  throw new Error('no problem raised');
}

describe('broker destination rules', () => {
  describe('url', () => {
    it('takes amqps:// and tls:// and splits the credentials off the stored url', () => {
      const rabbit = parseBrokerUrl('rabbitmq', 'amqps://app:s3cr%40t@mq.example.com:5671/prod', false);
      expect(rabbit.plain).toBe('amqps://mq.example.com:5671/prod');
      expect(rabbit.credentials).toEqual({ username: 'app', password: 's3cr@t' });
      const nats = parseBrokerUrl('nats', 'tls://tok_123456789@nats.example.com:4222', false);
      expect(nats.plain).toBe('tls://nats.example.com:4222');
      expect(nats.credentials).toEqual({ username: 'tok_123456789', password: '' });
      expect(parseBrokerUrl('nats', 'tls://nats.example.com', false).credentials).toBeNull();
    });

    it('refuses the plain schemes unless insecure targets are allowed, and every other scheme', () => {
      expect(problem(() => parseBrokerUrl('rabbitmq', 'amqp://mq.example.com', false))).toEqual({
        field: 'url',
        message: 'url of a rabbitmq endpoint must use amqps://',
      });
      expect(problem(() => parseBrokerUrl('nats', 'nats://nats.example.com', false)).message).toBe(
        'url of a nats endpoint must use tls://',
      );
      expect(parseBrokerUrl('rabbitmq', 'amqp://127.0.0.1:5672', true).plain).toBe('amqp://127.0.0.1:5672');
      expect(problem(() => parseBrokerUrl('rabbitmq', 'https://mq.example.com', true)).message).toBe(
        'url of a rabbitmq endpoint must use amqps:// or amqp://',
      );
      expect(problem(() => parseBrokerUrl('nats', 'amqps://mq.example.com', false)).field).toBe('url');
      expect(problem(() => parseBrokerUrl('nats', 'not a url', false)).field).toBe('url');
    });

    it('refuses private, loopback and metadata addresses, a query, and a path on nats', () => {
      for (const host of ['127.0.0.1', '10.0.0.5', '169.254.169.254', '[::1]', '[fd00::1]'])
        expect(problem(() => parseBrokerUrl('rabbitmq', `amqps://${host}:5671`, false)).message).toMatch(
          /^url points to a non-public address/,
        );
      expect(
        problem(() => parseBrokerUrl('rabbitmq', 'amqps://mq.example.com?heartbeat=5', false)).message,
      ).toBe('url must not have a query or a fragment');
      expect(problem(() => parseBrokerUrl('nats', 'tls://nats.example.com/x', false)).message).toBe(
        'url of a nats endpoint must not have a path',
      );
    });
  });

  describe('names', () => {
    it('requires the names of the type and refuses the others', () => {
      expect(brokerNames('rabbitmq', { exchange: 'events', routingKey: 'a.b' })).toEqual({
        exchange: 'events',
        routingKey: 'a.b',
      });
      expect(brokerNames('rabbitmq', { exchange: '', routingKey: 'queue-name' })).toEqual({
        exchange: '',
        routingKey: 'queue-name',
      });
      expect(problem(() => brokerNames('rabbitmq', { exchange: 'events' }))).toEqual({
        field: 'routingKey',
        message: 'routingKey is required for a rabbitmq endpoint',
      });
      expect(problem(() => brokerNames('nats', { subject: 'a.b', exchange: 'x' })).field).toBe('exchange');
      expect(problem(() => brokerNames('http', { subject: 'a.b' }))).toEqual({
        field: 'subject',
        message: 'subject belongs to a rabbitmq or nats endpoint; this one is http',
      });
      expect(brokerNames('http', { subject: null })).toBeNull();
    });

    it('refuses wildcards and spaces in a subject and odd characters in an exchange', () => {
      for (const subject of ['a.*', 'a.>', 'a b', 'a..b', '.a', 'x'.repeat(256)])
        expect(problem(() => brokerNames('nats', { subject })).field).toBe('subject');
      expect(brokerNames('nats', { subject: 'community.events.v1' })).toEqual({
        subject: 'community.events.v1',
      });
      expect(problem(() => brokerNames('rabbitmq', { exchange: 'a b', routingKey: 'k' })).field).toBe(
        'exchange',
      );
      expect(
        problem(() => brokerNames('rabbitmq', { exchange: 'e', routingKey: 'k'.repeat(256) })).field,
      ).toBe('routingKey');
    });
  });

  describe('credentials', () => {
    const ring = new SecretKeyRing([randomBytes(32)]);

    it('are sealed (no clear text) and open again', () => {
      const sealed = sealCredentials(ring, { username: 'app', password: 'hunter2-long-pass' });
      expect(JSON.stringify(sealed)).not.toContain('hunter2');
      expect(openCredentials(ring, sealed)).toEqual({ username: 'app', password: 'hunter2-long-pass' });
      expect(sealCredentials(ring, null)).toBeNull();
    });

    it('are masked on reads: the password, or a token given as the user name', () => {
      const plain = 'amqps://mq.example.com:5671/prod';
      expect(maskedCredentialsUrl(plain, { username: 'app', password: 'hunter2-long-pass' })).toBe(
        'amqps://app:…pass@mq.example.com:5671/prod',
      );
      expect(
        maskedCredentialsUrl('tls://n.example.com', { username: 'tok_abcdefgh1234', password: '' }),
      ).toBe('tls://…1234@n.example.com');
      expect(maskedCredentialsUrl(plain, null)).toBe(plain);
    });

    it('a url sent back masked keeps the stored credentials; new ones replace them', () => {
      const stored = { username: 'app', password: 'hunter2-long-pass' };
      expect(keepMaskedCredentials({ username: 'app', password: '…pass' }, stored)).toBe(stored);
      expect(keepMaskedCredentials({ username: 'other', password: '…pass' }, stored)).toEqual({
        username: 'other',
        password: '…pass',
      });
      const token = { username: 'tok_abcdefgh1234', password: '' };
      expect(keepMaskedCredentials({ username: '…1234', password: '' }, token)).toBe(token);
      expect(keepMaskedCredentials(null, stored)).toBeNull();
    });
  });
});
