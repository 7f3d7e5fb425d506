import { Injectable } from '@nestjs/common';
import { Errors } from '../../common/errors/app-error';
import type { Plan } from '../../generated/prisma/enums';
import { PrismaService } from '../../prisma/prisma.service';
import { CommunitiesStore } from '../community/communities.store';
import { MembershipsService } from '../members/memberships.service';

@Injectable()
export class CommunitiesService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly communities: CommunitiesStore,
    private readonly memberships: MembershipsService,
  ) {}

  /** Creates the community and makes the owner its OWNER, in one transaction. Slug taken → 409. */
  async create(input: { name: string; slug: string; plan?: Plan; ownerEmail: string }) {
    const slug = input.slug.toLowerCase();
    return this.prisma.$transaction(async (tx) => {
      if (await this.communities.slugTaken(tx, slug)) {
        throw Errors.conflict(`The slug '${slug}' is taken`);
      }
      const community = await this.communities.create(tx, {
        name: input.name,
        slug,
        plan: input.plan ?? 'FREE',
      });
      // Creating a community is the owner's own act, so they join under their account's name.
      await this.memberships.addMember(
        community.id,
        { email: input.ownerEmail, role: 'OWNER', ownAccount: true },
        tx,
      );
      return community;
    });
  }

  /** The communities with these slugs, in the order given (a slug with none is left out). */
  async findBySlugs(slugs: string[]): Promise<{ id: string; slug: string; plan: Plan }[]> {
    const found = await this.communities.findManyBySlugs(slugs);
    return slugs.flatMap((slug) => found.filter((community) => community.slug === slug));
  }

  /** Whether the database holds any community at all (the demo seed fills only an empty one). */
  async anyExists(): Promise<boolean> {
    return this.communities.anyExists();
  }

  /** A platform admin may pick any plan; everybody else gets FREE. */
  assertPlanAllowed(plan: Plan | undefined, isPlatformAdmin: boolean): void {
    if (plan && plan !== 'FREE' && !isPlatformAdmin) {
      throw Errors.forbidden('Only platform admins can create communities on a paid plan');
    }
  }
}
