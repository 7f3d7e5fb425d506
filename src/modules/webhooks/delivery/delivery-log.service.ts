import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { DeliveryStatus } from '../../../generated/prisma/enums';
import { Errors } from '../../../common/errors/app-error';
import { PrismaService } from '../../../prisma/prisma.service';
import type { SendResult } from './webhook-sender.service';

/** A delivery attempt as the API shows it (contract §7). */
export interface DeliveryView {
  id: string;
  endpointId: string;
  messageId: string;
  eventType: string;
  attempt: number;
  status: DeliveryStatus;
  responseStatus: number | null;
  responseBody: string | null;
  durationMs: number | null;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
  nextAttemptAt: Date | null;
}

export const DELIVERY_SELECT = {
  id: true,
  endpointId: true,
  messageId: true,
  eventType: true,
  attempt: true,
  status: true,
  responseStatus: true,
  responseBody: true,
  durationMs: true,
  error: true,
  createdAt: true,
  updatedAt: true,
  nextAttemptAt: true,
} as const;

export interface StartAttempt {
  communityId: string;
  endpointId: string;
  messageId: string;
  eventType: string;
  attempt: number;
}

export interface DeliveryPageQuery {
  limit: number;
  offset: number;
  status?: DeliveryStatus;
}

export interface DeliveryPage {
  items: DeliveryView[];
  limit: number;
  offset: number;
  total: number;
  hasMore: boolean;
}

/** The delivery log: one row per attempt, keyed by (endpoint, messageId, attempt). */
@Injectable()
export class DeliveryLogService {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Records an attempt as PENDING before it is sent. A job that runs twice (at-least-once queues)
   * finds the row it already wrote instead of failing or writing a second one.
   */
  async start(input: StartAttempt): Promise<{ id: string }> {
    const inserted = await this.prisma.$queryRaw<{ id: string }[]>`
      INSERT INTO webhook_deliveries (id, community_id, endpoint_id, message_id, event_type, attempt, status, updated_at)
      VALUES (${randomUUID()}::uuid, ${input.communityId}::uuid, ${input.endpointId}::uuid, ${input.messageId},
              ${input.eventType}, ${input.attempt}, 'PENDING', now())
      ON CONFLICT (endpoint_id, message_id, attempt) DO NOTHING
      RETURNING id`;
    if (inserted.length > 0) return inserted[0];
    const existing = await this.prisma.webhookDelivery.findUnique({
      where: {
        endpointId_messageId_attempt: {
          endpointId: input.endpointId,
          messageId: input.messageId,
          attempt: input.attempt,
        },
      },
      select: { id: true, communityId: true },
    });
    // the unique key has no community: make sure the row found is this community's
    if (!existing || existing.communityId !== input.communityId) throw Errors.notFound('Webhook delivery');
    return { id: existing.id };
  }

  /** Records the outcome of a sent attempt. */
  async finish(id: string, communityId: string, result: SendResult): Promise<DeliveryView> {
    return this.prisma.webhookDelivery.update({
      where: { communityId_id: { communityId, id } },
      data: {
        status: result.ok ? 'SUCCESS' : 'FAILED',
        responseStatus: result.status,
        responseBody: result.responseBody,
        durationMs: result.durationMs,
        error: result.error,
        nextAttemptAt: null,
      },
      select: DELIVERY_SELECT,
    });
  }

  /**
   * A page of an endpoint's attempts, newest first (ties broken by id). Page and `total` both come
   * from the (community_id, endpoint_id[, status], created_at, id) indexes: the count covers one
   * endpoint's rows, never the table.
   */
  async list(communityId: string, endpointId: string, query: DeliveryPageQuery): Promise<DeliveryPage> {
    const where = { communityId, endpointId, ...(query.status ? { status: query.status } : {}) };
    const [items, total] = await Promise.all([
      this.prisma.webhookDelivery.findMany({
        where,
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        skip: query.offset,
        take: query.limit,
        select: DELIVERY_SELECT,
      }),
      this.prisma.webhookDelivery.count({ where }),
    ]);
    return {
      items,
      limit: query.limit,
      offset: query.offset,
      total,
      hasMore: query.offset + items.length < total,
    };
  }
}
