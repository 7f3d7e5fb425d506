import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventFilter } from '../dist/esm/index.js';

describe('eventFilter', () => {
  it('names the event type, and the data filter when given', () => {
    assert.deepEqual(eventFilter('tweet.created'), { type: 'tweet.created' });
    assert.deepEqual(eventFilter('member.updated', { member: { role: 'ADMIN' } }), {
      type: 'member.updated',
      data: { member: { role: 'ADMIN' } },
    });
  });
});
