import { Injectable } from '@nestjs/common';
import { Errors } from '../../common/errors/app-error';
import { toPage, type Page } from '../../common/pagination/page-query.dto';
import type { Prisma } from '../../generated/prisma/client';
import { PrismaService, Tx } from '../../prisma/prisma.service';
import { OutboxService } from '../events/outbox.service';
import { AdvertisementsStore } from './advertisements.store';
import type { AdvertisementsQueryDto } from './dto/active-ads.query';
import type {
  AdvertisementDto,
  CreateAdvertisementDto,
  DeletedAdvertisementDto,
  UpdateAdvertisementDto,
} from './dto/advertisement.dto';

function assertWindow(startsAt: Date, endsAt: Date): void {
  if (startsAt >= endsAt) throw Errors.badRequest('endsAt must be after startsAt', 'endsAt');
}

/** Advertisements of a community; every change records customization.updated in its transaction. */
@Injectable()
export class AdvertisementsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly store: AdvertisementsStore,
    private readonly outbox: OutboxService,
  ) {}

  /**
   * Active = isActive and startsAt <= now < endsAt, newest start first. The (community_id,
   * is_active, starts_at) index narrows both the page and its `total` to the live rows.
   */
  activePage(
    communityId: string,
    query: AdvertisementsQueryDto,
    now = new Date(),
  ): Promise<Page<AdvertisementDto>> {
    return this.page(query, {
      communityId,
      isActive: true,
      startsAt: { lte: now },
      endsAt: { gt: now },
      ...(query.placement ? { placement: query.placement } : {}),
    });
  }

  /** Every advertisement of the community, for the people who manage them. */
  allPage(communityId: string, query: AdvertisementsQueryDto): Promise<Page<AdvertisementDto>> {
    return this.page(query, { communityId, ...(query.placement ? { placement: query.placement } : {}) });
  }

  create(communityId: string, dto: CreateAdvertisementDto): Promise<AdvertisementDto> {
    const startsAt = new Date(dto.startsAt);
    const endsAt = new Date(dto.endsAt);
    assertWindow(startsAt, endsAt);
    return this.prisma.$transaction(async (tx) => {
      const ad = await this.store.create(tx, communityId, {
        title: dto.title,
        imageUrl: dto.imageUrl,
        targetUrl: dto.targetUrl,
        placement: dto.placement,
        startsAt,
        endsAt,
        isActive: dto.isActive,
      });
      await this.recordChange(tx, communityId, 'created', ad);
      return ad;
    });
  }

  update(communityId: string, id: string, dto: UpdateAdvertisementDto): Promise<AdvertisementDto> {
    return this.prisma.$transaction(async (tx) => {
      const current = await this.store.findWindow(tx, communityId, id);
      if (!current) throw Errors.notFound('Advertisement');
      const { communityId: _tenant, startsAt, endsAt, ...fields } = dto;
      const window = {
        startsAt: startsAt !== undefined ? new Date(startsAt) : current.startsAt,
        endsAt: endsAt !== undefined ? new Date(endsAt) : current.endsAt,
      };
      assertWindow(window.startsAt, window.endsAt);
      const ad = await this.store.update(tx, communityId, id, { ...fields, ...window });
      await this.recordChange(tx, communityId, 'updated', ad);
      return ad;
    });
  }

  remove(communityId: string, id: string): Promise<DeletedAdvertisementDto> {
    return this.prisma.$transaction(async (tx) => {
      if (!(await this.store.delete(tx, communityId, id))) throw Errors.notFound('Advertisement');
      await this.outbox.record(tx, communityId, 'customization.updated', {
        kind: 'advertisement',
        action: 'deleted',
        advertisement: { id },
      });
      return { id, deleted: true as const };
    });
  }

  private async page(
    query: AdvertisementsQueryDto,
    where: Prisma.AdvertisementWhereInput & { communityId: string },
  ) {
    const { rows, total } = await this.store.page(where, (query.page - 1) * query.limit, query.limit);
    return toPage(rows, query, total);
  }

  private recordChange(
    tx: Tx,
    communityId: string,
    action: 'created' | 'updated',
    advertisement: AdvertisementDto,
  ) {
    return this.outbox.record(tx, communityId, 'customization.updated', {
      kind: 'advertisement',
      action,
      advertisement,
    });
  }
}
