import { Injectable } from '@nestjs/common';
import type { Prisma } from '../../generated/prisma/client';
import { PrismaService, Tx } from '../../prisma/prisma.service';
import type { AdvertisementDto } from './dto/advertisement.dto';

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

/** The columns a create or an update writes (never the community or the timestamps). */
type AdvertisementColumns = Omit<
  Prisma.AdvertisementUncheckedCreateInput,
  'id' | 'communityId' | 'createdAt' | 'updatedAt'
>;

/** The one owner of `advertisements`' queries; every one is scoped by the community. */
@Injectable()
export class AdvertisementsStore {
  constructor(private readonly prisma: PrismaService) {}

  /** Newest start first, ties broken by id; `where` includes the community. */
  async page(
    where: Prisma.AdvertisementWhereInput & { communityId: string },
    skip: number,
    take: number,
  ): Promise<{ rows: AdvertisementDto[]; total: number }> {
    const [rows, total] = await Promise.all([
      this.prisma.advertisement.findMany({
        where,
        orderBy: NEWEST_START_FIRST,
        skip,
        take,
        select: AD_SELECT,
      }),
      this.prisma.advertisement.count({ where }),
    ]);
    return { rows, total };
  }

  /** The advertisement's window, or null when it is not in this community. */
  findWindow(tx: Tx, communityId: string, id: string): Promise<{ startsAt: Date; endsAt: Date } | null> {
    return tx.advertisement.findUnique({
      where: { communityId_id: { communityId, id } },
      select: { startsAt: true, endsAt: true },
    });
  }

  create(tx: Tx, communityId: string, columns: AdvertisementColumns): Promise<AdvertisementDto> {
    return tx.advertisement.create({ data: { communityId, ...columns }, select: AD_SELECT });
  }

  update(
    tx: Tx,
    communityId: string,
    id: string,
    columns: Partial<AdvertisementColumns>,
  ): Promise<AdvertisementDto> {
    return tx.advertisement.update({
      where: { communityId_id: { communityId, id } },
      data: columns,
      select: AD_SELECT,
    });
  }

  /** Deletes the advertisement; false when there was none in this community. */
  async delete(tx: Tx, communityId: string, id: string): Promise<boolean> {
    const { count } = await tx.advertisement.deleteMany({ where: { communityId, id } });
    return count > 0;
  }
}
