// The files `npm run module:new` writes (scripts/module-new.mjs), as functions of the module's names.
// What they hold is what docs/adding-a-module.md describes; change both together.

/** The names of one module, derived from its folder name (`polls`) and its singular (`poll`). */
export function namesOf(folder, singular) {
  const words = (s) => s.split(/[-_]/);
  const pascal = (s) =>
    words(s)
      .map((w) => w[0].toUpperCase() + w.slice(1))
      .join('');
  const camel = (s) => pascal(s)[0].toLowerCase() + pascal(s).slice(1);
  const snake = (s) => words(s).join('_');
  return {
    folder, // polls: src/modules/polls, test/polls
    route: folder, // /api/sdk/polls
    feature: snake(folder), // the feature key and the table: polls
    table: snake(folder),
    Plural: pascal(folder), // PollsModule, PollsService
    Singular: pascal(singular), // Poll (the Prisma model), PollDto
    singularCamel: camel(singular), // poll: the event data's key, tx.poll
    pluralCamel: camel(folder), // this.polls
    singularFile: singular, // poll.events.ts, dto/poll.dto.ts
    eventPrefix: snake(singular), // poll.created
    CONST: snake(singular).toUpperCase(), // POLL_EVENTS
    noun: words(singular).join(' '), // "poll" in messages
    nouns: words(folder).join(' '),
  };
}

export const moduleFile = (n) => `import { Module } from '@nestjs/common';
import { MEMBER_POSTS_SETTING, PostingRule } from '../../common/access/posting';
import { CommunitiesStore, CommunitiesStoreModule } from '../community/communities.store';
import { EventsModule } from '../events/events.module';
import { ${n.Plural}Controller } from './${n.folder}.controller';
import { ${n.Plural}Service } from './${n.folder}.service';
import { ${n.Plural}Store } from './${n.folder}.store';

/** ${n.Plural} (feature \`${n.feature}\`). */
@Module({
  // PostingRule (who may post) reads the community's allowMemberPosts through the communities' store
  imports: [CommunitiesStoreModule, EventsModule],
  controllers: [${n.Plural}Controller],
  providers: [
    PostingRule,
    { provide: MEMBER_POSTS_SETTING, useExisting: CommunitiesStore },
    ${n.Plural}Service,
    ${n.Plural}Store,
  ],
})
export class ${n.Plural}Module {}
`;

export const controllerFile = (
  n,
) => `import { Body, Controller, Delete, Get, HttpStatus, Param, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AllowApiKey, RequireFeature, RequirePermission } from '../../common/decorators/auth.decorators';
import { CurrentActor, CurrentTenant } from '../../common/decorators/request.decorators';
import { ApiEndpoint } from '../../common/http/api-docs';
import { IdParamDto } from '../../common/http/id-param.dto';
import type { Actor, TenantContext } from '../../common/http/request-context';
import { PageQueryDto } from '../../common/pagination/page-query.dto';
import { Create${n.Singular}Dto, Deleted${n.Singular}Dto, ${n.Singular}Dto } from './dto/${n.singularFile}.dto';
import { ${n.Plural}Service } from './${n.folder}.service';

@ApiTags('${n.nouns}')
@Controller('sdk/${n.route}')
@AllowApiKey()
@RequireFeature('${n.feature}')
export class ${n.Plural}Controller {
  constructor(private readonly ${n.pluralCamel}: ${n.Plural}Service) {}

  @Get()
  @ApiEndpoint({
    summary: 'List ${n.nouns}, newest first (ties by id); total is exact',
    auth: 'jwt-or-api-key',
    response: ${n.Singular}Dto,
    paged: true,
    errors: [403],
  })
  list(@Query() query: PageQueryDto, @CurrentTenant() tenant: TenantContext) {
    return this.${n.pluralCamel}.list(tenant.communityId, query);
  }

  @Get(':id')
  @ApiEndpoint({
    communityIdQuery: true,
    summary: 'Get a ${n.noun}',
    auth: 'jwt-or-api-key',
    response: ${n.Singular}Dto,
    errors: [403, 404],
  })
  get(@Param() params: IdParamDto, @CurrentTenant() tenant: TenantContext) {
    return this.${n.pluralCamel}.get(tenant.communityId, params.id);
  }

  @Post()
  @RequirePermission('CONTENT_CREATE')
  @ApiEndpoint({
    summary: 'Create a ${n.noun} as the caller',
    description: 'Emits ${n.eventPrefix}.created.',
    auth: 'jwt-or-api-key',
    response: ${n.Singular}Dto,
    status: HttpStatus.CREATED,
    errors: [403],
  })
  create(@Body() dto: Create${n.Singular}Dto, @CurrentTenant() tenant: TenantContext, @CurrentActor() actor: Actor) {
    return this.${n.pluralCamel}.create(tenant, actor, dto);
  }

  @Delete(':id')
  @ApiEndpoint({
    summary: 'Delete a ${n.noun}: its author, or CONTENT_MODERATE',
    description: 'Emits ${n.eventPrefix}.deleted.',
    auth: 'jwt-or-api-key',
    response: Deleted${n.Singular}Dto,
    errors: [403, 404],
  })
  remove(@Param() params: IdParamDto, @CurrentTenant() tenant: TenantContext, @CurrentActor() actor: Actor) {
    return this.${n.pluralCamel}.remove(tenant, actor, params.id);
  }
}
`;

export const serviceFile = (n) => `import { Injectable } from '@nestjs/common';
import { PostingRule } from '../../common/access/posting';
import { Errors } from '../../common/errors/app-error';
import type { JsonText } from '../../common/http/json-text';
import type { Actor, TenantContext } from '../../common/http/request-context';
import type { Page } from '../../common/pagination/page-query.dto';
import { PrismaService } from '../../prisma/prisma.service';
import { OutboxService } from '../events/outbox.service';
import type { Create${n.Singular}Dto, Deleted${n.Singular}Dto, ${n.Singular}Dto } from './dto/${n.singularFile}.dto';
import { ${n.Plural}Store } from './${n.folder}.store';

/** The rules of ${n.nouns}; every query is the store's, scoped by the community. */
@Injectable()
export class ${n.Plural}Service {
  constructor(
    private readonly prisma: PrismaService,
    private readonly ${n.pluralCamel}: ${n.Plural}Store,
    private readonly outbox: OutboxService,
    private readonly posting: PostingRule,
  ) {}

  /** Newest first; the id breaks ties so pages never overlap or skip. */
  list(communityId: string, page: { page: number; limit: number }): Promise<JsonText<Page<${n.Singular}Dto>>> {
    return this.${n.pluralCamel}.page(communityId, page);
  }

  /** Another community's ${n.noun} is a 404, exactly like a missing one. */
  async get(communityId: string, id: string): Promise<${n.Singular}Dto> {
    const ${n.singularCamel} = await this.${n.pluralCamel}.find(this.prisma, communityId, id);
    if (!${n.singularCamel}) throw Errors.notFound('${n.Singular}');
    return ${n.singularCamel};
  }

  /** The ${n.noun} and its ${n.eventPrefix}.created event in one transaction. */
  async create(tenant: TenantContext, actor: Actor, input: Create${n.Singular}Dto): Promise<${n.Singular}Dto> {
    await this.posting.assertMayPost(tenant);
    return this.prisma.$transaction(async (tx) => {
      const ${n.singularCamel} = await this.${n.pluralCamel}.create(tx, {
        communityId: tenant.communityId,
        authorId: actor.userId,
        title: input.title,
      });
      await this.outbox.record(tx, tenant.communityId, '${n.eventPrefix}.created', { ${n.singularCamel} });
      return ${n.singularCamel};
    });
  }

  /** Its author (while they may still create content) or a moderator; ${n.eventPrefix}.deleted in the same transaction. */
  async remove(tenant: TenantContext, actor: Actor, id: string): Promise<Deleted${n.Singular}Dto> {
    return this.prisma.$transaction(async (tx) => {
      const ${n.singularCamel} = await this.${n.pluralCamel}.find(tx, tenant.communityId, id);
      if (!${n.singularCamel}) throw Errors.notFound('${n.Singular}');
      this.posting.assertMayChange(tenant, actor, ${n.singularCamel}.authorId, '${n.noun}');
      await this.${n.pluralCamel}.delete(tx, tenant.communityId, id);
      await this.outbox.record(tx, tenant.communityId, '${n.eventPrefix}.deleted', { ${n.singularCamel} });
      return { id, deleted: true as const };
    });
  }
}
`;

export const storeFile = (n) => `import { Injectable } from '@nestjs/common';
import type { JsonText } from '../../common/http/json-text';
import { newestFirstList, newestFirstPage, responseColumns } from '../../common/pagination/newest-first-page';
import type { Page } from '../../common/pagination/page-query.dto';
import { PrismaService, Tx } from '../../prisma/prisma.service';
import type { ${n.Singular}Dto } from './dto/${n.singularFile}.dto';

// the columns of ${n.Singular}Dto: the answer is written by PostgreSQL (no int8 or numeric column in a list)
const COLUMNS = responseColumns(['id', 'communityId', 'authorId', 'title', 'createdAt']);
const LIST = newestFirstList('${n.table}', COLUMNS.sql);

/** The one owner of \`${n.table}\`' queries; every one is scoped by the community. */
@Injectable()
export class ${n.Plural}Store {
  constructor(private readonly prisma: PrismaService) {}

  /** Newest first, ties by id, with the exact total the migration's counter line keeps. */
  page(communityId: string, page: { page: number; limit: number }): Promise<JsonText<Page<${n.Singular}Dto>>> {
    return newestFirstPage<${n.Singular}Dto>(this.prisma, LIST, communityId, page);
  }

  find(db: Tx | PrismaService, communityId: string, id: string): Promise<${n.Singular}Dto | null> {
    return db.${n.singularCamel}.findUnique({ where: { communityId_id: { communityId, id } }, select: COLUMNS.select });
  }

  create(tx: Tx, data: { communityId: string; authorId: string; title: string }): Promise<${n.Singular}Dto> {
    return tx.${n.singularCamel}.create({ data, select: COLUMNS.select });
  }

  async delete(tx: Tx, communityId: string, id: string): Promise<void> {
    await tx.${n.singularCamel}.delete({ where: { communityId_id: { communityId, id } } });
  }
}
`;

export const dtoFile = (n) => `import { IsString, MaxLength, MinLength } from 'class-validator';
import { TenantBodyDto } from '../../../common/http/tenant-body.dto';

export const TITLE_MAX_LENGTH = 200;

/** Body of POST /api/sdk/${n.route}. */
export class Create${n.Singular}Dto extends TenantBodyDto {
  /** 1–200 characters */
  @IsString()
  @MinLength(1)
  @MaxLength(TITLE_MAX_LENGTH)
  title: string;
}

export class ${n.Singular}Dto {
  id: string;
  communityId: string;
  authorId: string;
  title: string;
  createdAt: Date;
}

export class Deleted${n.Singular}Dto {
  id: string;
  deleted: true;
}
`;

export const eventsFile = (n, exampleId) => `import { defineEvent, EXAMPLE } from '../events/define-event';
import { dateTime, everyFieldRequired, uuid } from '../events/payload-schema';

// the ${n.noun} as the API answers it (${n.Singular}Dto)
const ${n.singularCamel}Event = {
  type: 'object',
  additionalProperties: false,
  required: ['${n.singularCamel}'],
  properties: {
    ${n.singularCamel}: everyFieldRequired({
      id: uuid,
      communityId: uuid,
      authorId: uuid,
      title: { type: 'string' },
      createdAt: dateTime,
    }),
  },
} as const;

const ${n.singularCamel} = {
  id: '${exampleId}',
  communityId: EXAMPLE.communityId,
  authorId: EXAMPLE.userId,
  title: 'An example ${n.noun}',
  createdAt: EXAMPLE.at,
};

export const ${n.CONST}_EVENTS = [
  defineEvent({
    type: '${n.eventPrefix}.created',
    description: 'A ${n.noun} was created',
    schema: ${n.singularCamel}Event,
    example: { ${n.singularCamel} },
    subject: ['${n.singularCamel}', 'id'],
  }),
  defineEvent({
    type: '${n.eventPrefix}.deleted',
    description: 'A ${n.noun} was deleted',
    schema: ${n.singularCamel}Event,
    example: { ${n.singularCamel} },
    subject: ['${n.singularCamel}', 'id'],
  }),
] as const;
`;
