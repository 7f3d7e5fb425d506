import { Injectable } from '@nestjs/common';
import { PrismaService, Tx } from '../../prisma/prisma.service';

/** The one owner of `customizations`' queries: one row per community, the sidebar a JSON document. */
@Injectable()
export class CustomizationsStore {
  constructor(private readonly prisma: PrismaService) {}

  findSidebar(communityId: string): Promise<{ sidebar: unknown; updatedAt: Date } | null> {
    return this.prisma.customization.findUnique({
      where: { communityId },
      select: { sidebar: true, updatedAt: true },
    });
  }

  /** Replaces the sidebar whole (one upsert); answers when. */
  async replaceSidebar(tx: Tx, communityId: string, sidebar: object[]): Promise<Date> {
    const row = await tx.customization.upsert({
      where: { communityId },
      create: { communityId, sidebar },
      update: { sidebar },
      select: { updatedAt: true },
    });
    return row.updatedAt;
  }
}
