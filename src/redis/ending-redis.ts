import Redis, { type RedisOptions } from 'ioredis';
import { closeHandler } from 'ioredis/built/redis/event_handler';

/**
 * ioredis's client, except that disconnect() between two reconnect attempts (Redis down) ends the
 * connection as it does in every other state. ioredis then only clears its reconnect timer: it emits
 * no 'end' and leaves queued commands pending for ever (redis/ioredis#1830), and BullMQ's
 * Worker.close() waits for that 'end' (taskforcesh/bullmq#4656), so a worker told to stop during an
 * outage never stopped. The handler ioredis runs to end a never-connected client ends this one: 'end'
 * is emitted and the pending commands fail with "Connection is closed". BullMQ duplicates the client
 * it is given for its blocking connection, so duplicates are of this class too.
 */
export class EndingRedis extends Redis {
  override disconnect(reconnect = false): void {
    const betweenAttempts = !reconnect && this.status === 'reconnecting';
    super.disconnect(reconnect);
    if (betweenAttempts) closeHandler(this)();
  }

  override duplicate(override?: Partial<RedisOptions>): EndingRedis {
    return new EndingRedis({ ...this.options, ...override });
  }
}
