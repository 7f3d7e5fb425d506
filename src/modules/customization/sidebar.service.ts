import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../prisma/prisma.service';
import { OutboxService } from '../events/outbox.service';
import type { SidebarDto, SidebarItemDto } from './dto/sidebar.dto';

/** Only the documented keys, in a fixed order: what is stored is exactly what was validated. */
function toStoredItem(item: SidebarItemDto): SidebarItemDto {
  return { label: item.label, url: item.url, ...(item.icon !== undefined ? { icon: item.icon } : {}) };
}

/** The community's sidebar: one JSON document, replaced whole. */
@Injectable()
export class SidebarService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly outbox: OutboxService,
  ) {}

  async get(communityId: string): Promise<SidebarDto> {
    const row = await this.prisma.customization.findUnique({
      where: { communityId },
      select: { sidebar: true, updatedAt: true },
    });
    return { items: (row?.sidebar ?? []) as unknown as SidebarItemDto[], updatedAt: row?.updatedAt ?? null };
  }

  /** Replaces the sidebar atomically (one upsert) and records customization.updated with it. */
  replace(communityId: string, items: SidebarItemDto[]): Promise<SidebarDto> {
    const sidebar = items.map(toStoredItem);
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.customization.upsert({
        where: { communityId },
        create: { communityId, sidebar: sidebar as object[] },
        update: { sidebar: sidebar as object[] },
        select: { updatedAt: true },
      });
      const result = { items: sidebar, updatedAt: row.updatedAt };
      await this.outbox.record(tx, communityId, 'customization.updated', {
        kind: 'sidebar',
        sidebar: result,
      });
      return result;
    });
  }
}
