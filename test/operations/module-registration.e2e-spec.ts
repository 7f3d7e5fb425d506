/* eslint-disable @typescript-eslint/no-explicit-any -- the OpenAPI document and answers are untyped JSON */
import { Body, Controller, Get, HttpStatus, Injectable, Module, Post, Query } from '@nestjs/common';
import { ApiProperty, ApiTags } from '@nestjs/swagger';
import { plainToInstance } from 'class-transformer';
import { IsString, MaxLength, MinLength, validate } from 'class-validator';
import type { FeatureKey } from '../../src/common/access/plans';
import { AllowApiKey, RequireFeature, RequirePermission } from '../../src/common/decorators/auth.decorators';
import { CurrentTenant } from '../../src/common/decorators/request.decorators';
import { ApiEndpoint } from '../../src/common/http/api-docs';
import type { TenantContext } from '../../src/common/http/request-context';
import { TenantBodyDto } from '../../src/common/http/tenant-body.dto';
import {
  newestFirstList,
  newestFirstPage,
  responseColumns,
} from '../../src/common/pagination/newest-first-page';
import { PageQueryDto } from '../../src/common/pagination/page-query.dto';
import { AppModule } from '../../src/app.module';
import { EventsModule } from '../../src/modules/events/events.module';
import { OutboxService } from '../../src/modules/events/outbox.service';
import { CreateWebhookDto } from '../../src/modules/webhooks/dto/webhook-requests.dto';
import { PrismaService } from '../../src/prisma/prisma.service';
import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { routeArgumentClasses } from '../utils/input-classes';
import { startReceiver, verifyWebhook, type Receiver } from '../utils/webhook-receiver';
import {
  createEndpoint,
  DELIVERY_TEST_ENV,
  startTestWorker,
  waitFor,
  type TestWorker,
} from '../utils/worker';
import { classNamed, fieldsOf, writeRoutes } from '../utils/write-routes';

/**
 * A module added the way docs/adding-a-module.md says gets tenancy, plan gating, its place in the
 * OpenAPI document, hostile-input coverage, exact totals and event delivery from its registrations
 * alone. The test-only module below is registered through the same lines a real one adds: its
 * feature key's line in src/common/access/features.ts and its events' line in
 * src/modules/events/module-events.ts (each file replaced here by itself plus that one line), its
 * module beside AppModule (AppModule's imports line), and its counted table by the one SQL line
 * of its migration (count_rows_per_community).
 */

const FEATURE = 'registered_probe';
const EVENT = 'registered_probe.created';
const TABLE = 'registered_probe_items';

jest.mock('../../src/common/access/features', () => {
  const actual = jest.requireActual('../../src/common/access/features');
  return { SMALLEST_PLAN_WITH: { ...actual.SMALLEST_PLAN_WITH, registered_probe: 'PRO' } };
});
jest.mock('../../src/modules/events/module-events', () => {
  const actual = jest.requireActual('../../src/modules/events/module-events');
  const probe = jest.requireActual('./registered-probe.events');
  return { MODULE_EVENTS: [...actual.MODULE_EVENTS, ...probe.REGISTERED_PROBE_EVENTS] };
});

class RegisteredProbeItemInput extends TenantBodyDto {
  /** 1–50 characters */
  @IsString()
  @MinLength(1)
  @MaxLength(50)
  label: string;
}

class RegisteredProbeItemDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) communityId: string;
  @ApiProperty() label: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

const COLUMNS = responseColumns(['id', 'communityId', 'label', 'createdAt']);
const LIST = newestFirstList(TABLE, COLUMNS.sql);

@Injectable()
class RegisteredProbeService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly outbox: OutboxService,
  ) {}

  list(communityId: string, page: { page: number; limit: number }) {
    return newestFirstPage<RegisteredProbeItemDto>(this.prisma, LIST, communityId, page);
  }

  create(communityId: string, label: string) {
    return this.prisma.$transaction(async (tx) => {
      const [item] = await tx.$queryRawUnsafe<RegisteredProbeItemDto[]>(
        `INSERT INTO ${TABLE} (community_id, label) VALUES ($1::uuid, $2) RETURNING ${COLUMNS.sql}`,
        communityId,
        label,
      );
      const { createdAt: _createdAt, ...data } = item;
      // the event is registered at run time (the mocked module-events.ts): the compiler cannot know it
      await this.outbox.record(tx, communityId, EVENT as never, { item: data } as never);
      return item;
    });
  }
}

@ApiTags('registered probe')
@Controller('probe/registered-items')
@AllowApiKey()
@RequireFeature(FEATURE as FeatureKey)
class RegisteredProbeController {
  constructor(private readonly items: RegisteredProbeService) {}

  @Get()
  @ApiEndpoint({
    summary: 'List probe items',
    auth: 'jwt-or-api-key',
    response: RegisteredProbeItemDto,
    paged: true,
    errors: [403],
  })
  list(@Query() query: PageQueryDto, @CurrentTenant() tenant: TenantContext) {
    return this.items.list(tenant.communityId, query);
  }

  @Post()
  @RequirePermission('CONTENT_CREATE')
  @ApiEndpoint({
    summary: 'Create a probe item',
    auth: 'jwt-or-api-key',
    response: RegisteredProbeItemDto,
    status: HttpStatus.CREATED,
    errors: [403],
  })
  create(@Body() dto: RegisteredProbeItemInput, @CurrentTenant() tenant: TenantContext) {
    return this.items.create(tenant.communityId, dto.label);
  }
}

@Module({
  imports: [EventsModule],
  controllers: [RegisteredProbeController],
  providers: [RegisteredProbeService],
})
class RegisteredProbeModule {}

describe('a module registered by its one-line registrations', () => {
  let t: TestApp;
  let doc: any;

  beforeAll(async () => {
    t = await createTestApp(DELIVERY_TEST_ENV, [AppModule, RegisteredProbeModule]);
    // what the module's migration would hold: the table, its newest-first index, its one counter line
    await t.prisma.$executeRawUnsafe(
      `CREATE TABLE ${TABLE} (
         id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
         community_id uuid NOT NULL REFERENCES communities(id) ON DELETE CASCADE,
         label text NOT NULL,
         created_at timestamptz(3) NOT NULL DEFAULT now())`,
    );
    await t.prisma.$executeRawUnsafe(`CREATE INDEX ON ${TABLE} (community_id, created_at DESC, id DESC)`);
    await t.prisma.$executeRawUnsafe(`SELECT count_rows_per_community('${TABLE}')`);
    doc = (await call(t.app, 'GET', '/api/docs-json')).body;
  });
  afterAll(async () => {
    await t?.prisma.$executeRawUnsafe(`DROP TABLE IF EXISTS ${TABLE}`);
    await t?.close();
  });

  const create = (token: string, label: string, communityId?: string) =>
    call(t.app, 'POST', '/api/probe/registered-items', { token, body: { label, communityId } });
  const list = (token: string, query = '') =>
    call(t.app, 'GET', `/api/probe/registered-items${query}`, { token });

  it('is in the OpenAPI document: its routes under its tag, its body, its event among the webhooks', () => {
    const path = doc.paths['/api/probe/registered-items'];
    expect(Object.keys(path).sort()).toEqual(['get', 'post']);
    expect(path.post.tags).toEqual(['registered probe']);
    expect(path.post.responses['403']).toBeDefined();
    // the body's schema by name (its fields and limits come from the compiler plugin, in `nest build` only)
    expect(path.post.requestBody.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/RegisteredProbeItemInput',
    );
    expect(doc.components.schemas.RegisteredProbeItemInput).toBeDefined();
    expect(doc['x-webhooks'][EVENT]).toBeDefined();
  });

  it('has its event in the catalog: listed by GET /api/webhooks/event-types and subscribable', async () => {
    const { token } = await memberWithToken(t.app, { plan: 'PRO', role: 'OWNER' });
    const types = await call(t.app, 'GET', '/api/webhooks/event-types', { token });
    expect(types.body.data.items.map((item: { name: string }) => item.name)).toContain(EVENT);
    // the create route's own validation accepts it (the route is not called: the run's document,
    // built from dist/ without this module, would not list the event in its answer)
    const dto = plainToInstance(CreateWebhookDto, { url: 'https://example.com/hook', events: [EVENT] });
    expect(await validate(dto)).toEqual([]);
  });

  it('is plan-gated by its feature key: FREE is refused, PRO is not', async () => {
    const free = await memberWithToken(t.app, { plan: 'FREE', role: 'OWNER' });
    for (const res of [await create(free.token, 'x'), await list(free.token)]) {
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ success: false, code: 'FEATURE_NOT_AVAILABLE', featureKey: FEATURE });
    }
    const pro = await memberWithToken(t.app, { plan: 'PRO', role: 'OWNER' });
    expect((await create(pro.token, 'x')).status).toBe(201);
  });

  it('is tenant-scoped, with an exact total per community from its counter line', async () => {
    const a = await memberWithToken(t.app, { plan: 'PRO', role: 'OWNER' });
    const b = await memberWithToken(t.app, { plan: 'PRO', role: 'OWNER' });
    for (const label of ['one', 'two', 'three']) expect((await create(a.token, label)).status).toBe(201);
    const page = await list(a.token, '?limit=2');
    expect(page.body.data).toMatchObject({ total: 3, hasMore: true, page: 1, limit: 2 });
    expect(page.body.data.items.map((i: { label: string }) => i.label)).toEqual(['three', 'two']);
    expect((await list(b.token)).body.data).toMatchObject({ items: [], total: 0 });
    // another community's caller naming the first community is refused, and writes nothing there
    const foreign = await create(b.token, 'intruder', a.community.id);
    expect(foreign.status).toBe(403);
    expect((await list(b.token, `?communityId=${a.community.id}`)).status).toBe(403);
    expect((await list(a.token)).body.data.total).toBe(3);
    await t.prisma.$executeRawUnsafe(`DELETE FROM ${TABLE} WHERE label = 'two'`);
    expect((await list(a.token)).body.data.total).toBe(2);
  });

  it('has its write route found and covered by the hostile-input test', async () => {
    const route = writeRoutes(doc).find(
      (r) => r.method === 'POST' && r.template === '/api/probe/registered-items',
    );
    expect(route?.schema).toBe('RegisteredProbeItemInput');
    const fields = fieldsOf(
      classNamed(route!.schema!, routeArgumentClasses(t.app)),
      doc.components.schemas,
      route!.schema!,
    );
    expect(fields.filter((f) => f.text).map((f) => f.path)).toEqual(expect.arrayContaining(['label']));
    const { token } = await memberWithToken(t.app, { plan: 'PRO', role: 'OWNER' });
    for (const field of fields.filter((f) => f.text)) {
      const res = await call(t.app, 'POST', '/api/probe/registered-items', {
        token,
        body: field.body('ok\u0000ok'),
      });
      expect({ field: field.path, status: res.status }).toEqual({ field: field.path, status: 400 });
    }
  });

  describe('event delivery', () => {
    let worker: TestWorker;
    let receiver: Receiver;
    beforeAll(async () => {
      worker = await startTestWorker();
      receiver = await startReceiver();
    });
    afterAll(async () => {
      await worker?.stop();
      await receiver?.close();
    });

    it('delivers its event, signed, to an endpoint of the community subscribed to it', async () => {
      const { community, token } = await memberWithToken(t.app, { plan: 'PRO', role: 'OWNER' });
      const path = `/${unique('probe')}`;
      const endpoint = await createEndpoint(t, community.id, { url: receiver.url + path, events: [EVENT] });
      const item = (await create(token, 'delivered')).body.data;
      const [request] = await waitFor('the probe event delivered', () => {
        const got = receiver.at(path);
        return got.length > 0 && got;
      });
      const body = verifyWebhook(request, endpoint.secret) as any;
      expect(body).toMatchObject({
        type: EVENT,
        communityId: community.id,
        data: { item: { id: item.id, communityId: community.id, label: 'delivered' } },
      });
    });
  });
});
