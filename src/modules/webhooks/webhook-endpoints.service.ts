import { Inject, Injectable } from '@nestjs/common';
import { Errors } from '../../common/errors/app-error';
import { AppConfig } from '../../config/app-config';
import { PrismaService } from '../../prisma/prisma.service';
import { WEBHOOK_DNS_LOOKUP } from './delivery/webhook-sender.service';
import { assertSafeTargetUrl, ResolveAll, UnsafeTargetError } from './delivery/url-safety';
import { WebhookSecretsService } from './secrets/webhook-secrets.service';
import type { CreateWebhookDto, UpdateWebhookDto } from './dto/webhook-requests.dto';
import type { CreatedWebhookDto, RotatedSecretDto, WebhookDto } from './dto/webhook-responses.dto';

/** The endpoint columns a read route may show: the secret lives in another table and never here. */
export const WEBHOOK_SELECT = {
  id: true,
  communityId: true,
  url: true,
  events: true,
  description: true,
  isActive: true,
  disabledAt: true,
  consecutiveFailures: true,
  failingSince: true,
  lastSuccessAt: true,
  createdAt: true,
  updatedAt: true,
} as const;

/** Webhook endpoints of a community: every query is scoped by the community. */
@Injectable()
export class WebhookEndpointsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly config: AppConfig,
    private readonly secrets: WebhookSecretsService,
    @Inject(WEBHOOK_DNS_LOOKUP) private readonly lookup: ResolveAll,
  ) {}

  async list(communityId: string): Promise<{ items: WebhookDto[] }> {
    const items = await this.prisma.webhookEndpoint.findMany({
      where: { communityId },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      select: WEBHOOK_SELECT,
    });
    return { items };
  }

  async get(communityId: string, id: string): Promise<WebhookDto> {
    const endpoint = await this.prisma.webhookEndpoint.findUnique({
      where: { communityId_id: { communityId, id } },
      select: WEBHOOK_SELECT,
    });
    if (!endpoint) throw Errors.notFound('Webhook endpoint');
    return endpoint;
  }

  async create(communityId: string, dto: CreateWebhookDto): Promise<CreatedWebhookDto> {
    const url = await this.validUrl(dto.url);
    return this.prisma.$transaction(async (tx) => {
      // The cap bounds one event's fan-out. Locking the community row serialises this community's
      // creates, so two at cap-1 cannot both pass the count. NO KEY UPDATE, not UPDATE: rows that
      // reference the community (tweets, members) keep being written meanwhile.
      await tx.$queryRaw`SELECT 1 FROM communities WHERE id = ${communityId}::uuid FOR NO KEY UPDATE`;
      const cap = this.config.WEBHOOK_MAX_ENDPOINTS_PER_COMMUNITY;
      if ((await tx.webhookEndpoint.count({ where: { communityId } })) >= cap) {
        throw Errors.conflict(
          `This community already has the maximum of ${cap} webhook endpoints; delete one before creating another`,
        );
      }
      const endpoint = await tx.webhookEndpoint.create({
        data: { communityId, url, events: dto.events, description: dto.description ?? '' },
        select: WEBHOOK_SELECT,
      });
      const secret = await this.secrets.create(tx, communityId, endpoint.id);
      return { ...endpoint, secret };
    });
  }

  /**
   * Partial update. isActive=true on an inactive endpoint is a re-enable: it clears disabledAt and
   * the failure streak (spec §3), so an auto-disabled endpoint starts afresh; on an endpoint that is
   * already active it changes nothing.
   */
  async update(communityId: string, id: string, dto: UpdateWebhookDto): Promise<WebhookDto> {
    const url = dto.url === undefined ? undefined : await this.validUrl(dto.url);
    return this.prisma.$transaction(async (tx) => {
      const current = await tx.webhookEndpoint.findUnique({
        where: { communityId_id: { communityId, id } },
        select: { isActive: true },
      });
      if (!current) throw Errors.notFound('Webhook endpoint');
      const reEnable = dto.isActive === true && !current.isActive;
      return tx.webhookEndpoint.update({
        where: { communityId_id: { communityId, id } },
        data: {
          url,
          events: dto.events,
          description: dto.description,
          isActive: dto.isActive,
          ...(reEnable ? { disabledAt: null, consecutiveFailures: 0, failingSince: null } : {}),
        },
        select: WEBHOOK_SELECT,
      });
    });
  }

  /** Removes the endpoint; its secrets and delivery log go with it (foreign keys cascade). */
  async remove(communityId: string, id: string): Promise<{ id: string; deleted: true }> {
    const { count } = await this.prisma.webhookEndpoint.deleteMany({ where: { communityId, id } });
    if (count === 0) throw Errors.notFound('Webhook endpoint');
    return { id, deleted: true };
  }

  async rotateSecret(communityId: string, id: string): Promise<RotatedSecretDto> {
    const rotatedAt = new Date();
    const secret = await this.secrets.rotate(communityId, id);
    return {
      endpointId: id,
      secret,
      rotatedAt,
      previousSecretsExpireAt: new Date(rotatedAt.getTime() + this.config.webhookSecretOverlapMs),
    };
  }

  /** Normalised target URL, or 400 naming the rule it breaks. The target is never contacted. */
  private async validUrl(raw: string): Promise<string> {
    try {
      const url = await assertSafeTargetUrl(raw, {
        allowInsecure: this.config.WEBHOOK_ALLOW_INSECURE_TARGETS,
        lookup: this.lookup,
      });
      return url.toString();
    } catch (err) {
      if (err instanceof UnsafeTargetError) {
        throw Errors.badRequest(`${err.message}${await this.insecureHint(raw)}`, 'url');
      }
      throw err;
    }
  }

  /** Outside production, a refusal that WEBHOOK_ALLOW_INSECURE_TARGETS would lift says so. */
  private async insecureHint(raw: string): Promise<string> {
    if (this.config.isProduction || this.config.WEBHOOK_ALLOW_INSECURE_TARGETS) return '';
    const lifted = await assertSafeTargetUrl(raw, { allowInsecure: true, lookup: this.lookup }).then(
      () => true,
      () => false,
    );
    return lifted ? ' (for a local receiver in development, set WEBHOOK_ALLOW_INSECURE_TARGETS=true)' : '';
  }
}
