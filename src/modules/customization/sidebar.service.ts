import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../prisma/prisma.service';
import { OutboxService } from '../events/outbox.service';
import { CustomizationsStore } from './customizations.store';
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
    private readonly customizations: CustomizationsStore,
    private readonly outbox: OutboxService,
  ) {}

  async get(communityId: string): Promise<SidebarDto> {
    const row = await this.customizations.findSidebar(communityId);
    return { items: (row?.sidebar ?? []) as unknown as SidebarItemDto[], updatedAt: row?.updatedAt ?? null };
  }

  /** Replaces the sidebar atomically (one upsert) and records customization.updated with it. */
  replace(communityId: string, items: SidebarItemDto[]): Promise<SidebarDto> {
    const sidebar = items.map(toStoredItem);
    return this.prisma.$transaction(async (tx) => {
      const updatedAt = await this.customizations.replaceSidebar(tx, communityId, sidebar as object[]);
      const result = { items: sidebar, updatedAt };
      await this.outbox.record(tx, communityId, 'customization.updated', {
        kind: 'sidebar',
        sidebar: result,
      });
      return result;
    });
  }
}
