import { Injectable } from '@nestjs/common';
import { Errors } from '../../common/errors/app-error';
import { toPage, type Page } from '../../common/pagination/page-query.dto';
import type { Prisma } from '../../generated/prisma/client';
import { PrismaService, Tx } from '../../prisma/prisma.service';
import { OutboxService } from '../events/outbox.service';
import type { AdvertisementsQueryDto } from './dto/active-ads.query';
import type {
  AdvertisementDto,
  CreateAdvertisementDto,
  DeletedAdvertisementDto,
  UpdateAdvertisementDto,
} from './dto/advertisement.dto';

const AD_SELECT = {
  id: true,
  title: true,
  imageUrl: true,
  targetUrl: true,
  placement: true,
  startsAt: true,
  endsAt: true,
  isActive: true,
  createdAt: true,
  updatedAt: true,
} as const;

const NEWEST_START_FIRST = [{ startsAt: 'desc' as const }, { id: 'desc' as const }];

function assertWindow(startsAt: Date, endsAt: Date): void {
  if (startsAt >= endsAt) throw Errors.badRequest('endsAt must be after startsAt', 'endsAt');
}

/** Advertisements of a community; every change records customization.updated in its transaction. */
@Injectable()
export class AdvertisementsService {
  constructor(
    private readonly prisma: PrismaService,
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
      const ad = await tx.advertisement.create({
        data: {
          communityId,
          title: dto.title,
          imageUrl: dto.imageUrl,
          targetUrl: dto.targetUrl,
          placement: dto.placement,
          startsAt,
          endsAt,
          isActive: dto.isActive,
        },
        select: AD_SELECT,
      });
      await this.recordChange(tx, communityId, 'created', ad);
      return ad;
    });
  }

  update(communityId: string, id: string, dto: UpdateAdvertisementDto): Promise<AdvertisementDto> {
    return this.prisma.$transaction(async (tx) => {
      const current = await tx.advertisement.findUnique({
        where: { communityId_id: { communityId, id } },
        select: { startsAt: true, endsAt: true },
      });
      if (!current) throw Errors.notFound('Advertisement');
      const { communityId: _tenant, startsAt, endsAt, ...fields } = dto;
      const window = {
        startsAt: startsAt !== undefined ? new Date(startsAt) : current.startsAt,
        endsAt: endsAt !== undefined ? new Date(endsAt) : current.endsAt,
      };
      assertWindow(window.startsAt, window.endsAt);
      const ad = await tx.advertisement.update({
        where: { communityId_id: { communityId, id } },
        data: { ...fields, ...window },
        select: AD_SELECT,
      });
      await this.recordChange(tx, communityId, 'updated', ad);
      return ad;
    });
  }

  remove(communityId: string, id: string): Promise<DeletedAdvertisementDto> {
    return this.prisma.$transaction(async (tx) => {
      const deleted = await tx.advertisement.deleteMany({ where: { communityId, id } });
      if (deleted.count === 0) throw Errors.notFound('Advertisement');
      await this.outbox.record(tx, communityId, 'customization.updated', {
        kind: 'advertisement',
        action: 'deleted',
        advertisement: { id },
      });
      return { id, deleted: true as const };
    });
  }

  private async page(query: AdvertisementsQueryDto, where: Prisma.AdvertisementWhereInput) {
    const [items, total] = await Promise.all([
      this.prisma.advertisement.findMany({
        where,
        orderBy: NEWEST_START_FIRST,
        skip: (query.page - 1) * query.limit,
        take: query.limit,
        select: AD_SELECT,
      }),
      this.prisma.advertisement.count({ where }),
    ]);
    return toPage(items, query, total);
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
