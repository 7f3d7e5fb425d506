import { Body, Controller, HttpStatus, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AllowApiKey, RequireFeature, RequirePermission } from '../../common/decorators/auth.decorators';
import { CurrentActor, CurrentTenant } from '../../common/decorators/request.decorators';
import { ApiEndpoint } from '../../common/http/api-docs';
import type { Actor, TenantContext } from '../../common/http/request-context';
import { CreateEmbedSessionDto, EmbedSessionDto } from './dto/create-embed-session.dto';
import { EmbedSessionsService } from './embed-sessions.service';

@ApiTags('embed')
@Controller('embed')
@AllowApiKey()
export class EmbedController {
  constructor(private readonly sessions: EmbedSessionsService) {}

  @Post('sessions')
  @RequireFeature('embed')
  @RequirePermission('EMBED_CREATE')
  @ApiEndpoint({
    summary: 'Create an embed session',
    description:
      'Answers a short-lived JWT (claim typ "embed", the session, the community, the allowed origin; ' +
      'exp = ttlSeconds) that every other route refuses with 401, and an embedUrl without the token. ' +
      'Records embed.session.created (without the token).',
    auth: 'jwt-or-api-key',
    response: EmbedSessionDto,
    status: HttpStatus.CREATED,
    errors: [403],
  })
  create(
    @Body() dto: CreateEmbedSessionDto,
    @CurrentTenant() tenant: TenantContext,
    @CurrentActor() actor: Actor,
  ) {
    return this.sessions.create(tenant.communityId, actor.userId, dto);
  }
}
