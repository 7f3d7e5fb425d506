import { Inject, Injectable } from '@nestjs/common';
import { Errors } from '../errors/app-error';
import type { Actor, TenantContext } from '../http/request-context';
import type { Permission } from './permissions';

/**
 * Whether the caller may post in a community: with the community's allowMemberPosts off, only
 * members who may moderate can.
 */
export function mayPost(permissions: ReadonlySet<Permission>, allowMemberPosts: boolean): boolean {
  return allowMemberPosts || permissions.has('CONTENT_MODERATE');
}

/**
 * Who the caller may change items of, as a condition a statement applies in the same step as the
 * change: any author's when they may moderate, else their own while they may still create content
 * (`ownAuthorId` null: nobody's). mayChangeAuthored is this condition applied to one item.
 */
export function changeableAuthors(
  permissions: ReadonlySet<Permission>,
  actor: Pick<Actor, 'userId'>,
): { anyAuthor: boolean; ownAuthorId: string | null } {
  return {
    anyAuthor: permissions.has('CONTENT_MODERATE'),
    ownAuthorId: permissions.has('CONTENT_CREATE') ? actor.userId : null,
  };
}

/**
 * Whether the caller may change (edit or delete) an item someone authored: its author while they may
 * still create content, or anyone who may moderate.
 */
export function mayChangeAuthored(
  permissions: ReadonlySet<Permission>,
  actor: Pick<Actor, 'userId'>,
  authorId: string,
): boolean {
  const { anyAuthor, ownAuthorId } = changeableAuthors(permissions, actor);
  return anyAuthor || authorId === ownAuthorId;
}

/**
 * Where the community's allowMemberPosts setting is read: the communities' store, provided by the
 * module that uses PostingRule (src/common never imports a module).
 */
export interface MemberPostsSetting {
  allowsMemberPosts(communityId: string): Promise<boolean>;
}
export const MEMBER_POSTS_SETTING = Symbol('MEMBER_POSTS_SETTING');

/**
 * Who may post and who may change what was posted, for any module whose members author content
 * (tweets today): a provider of the module that uses it, beside MEMBER_POSTS_SETTING.
 */
@Injectable()
export class PostingRule {
  constructor(@Inject(MEMBER_POSTS_SETTING) private readonly setting: MemberPostsSetting) {}

  /** 403 unless the caller may post in the tenant's community (see mayPost). */
  async assertMayPost(tenant: TenantContext): Promise<void> {
    // a moderator may post whatever the setting says: it is not read
    if (tenant.permissions.has('CONTENT_MODERATE')) return;
    const allowMemberPosts = await this.setting.allowsMemberPosts(tenant.communityId);
    if (!mayPost(tenant.permissions, allowMemberPosts)) {
      throw Errors.forbidden('This community does not allow member posts');
    }
  }

  /** 403 unless the caller may change the item `authorId` wrote (see mayChangeAuthored); `noun` names it. */
  assertMayChange(tenant: TenantContext, actor: Actor, authorId: string, noun: string): void {
    if (!mayChangeAuthored(tenant.permissions, actor, authorId)) {
      throw Errors.forbidden(`Only the ${noun}'s author or a moderator can change it`);
    }
  }
}
