import { Controller, Get, Query, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { TenantScoped } from '../decorators/auth.decorators';
import { KnownFieldsGuard } from './known-fields.guard';

class PageQuery {}

@Controller()
class Routes {
  @Get('declared')
  declared(@Query() _query: PageQuery) {}
  @Get('undeclared')
  @TenantScoped()
  undeclared() {}
}

function contextOf(handler: keyof Routes, request: { query?: unknown; body?: unknown }): ExecutionContext {
  return new ExecutionContextHost([request, {}], Routes, Routes.prototype[handler]);
}

describe('KnownFieldsGuard', () => {
  const guard = new KnownFieldsGuard(new Reflector());

  it('passes at once, without a promise, when nothing undeclared is there to check', () => {
    expect(guard.canActivate(contextOf('undeclared', { query: {} }))).toBe(true);
    // a declared query is the pipe's to validate
    expect(guard.canActivate(contextOf('declared', { query: { page: '1' } }))).toBe(true);
  });

  it('still refuses an unknown field of an undeclared query string or body', async () => {
    await expect(guard.canActivate(contextOf('undeclared', { query: { nope: '1' } }))).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    await expect(
      guard.canActivate(contextOf('undeclared', { query: {}, body: { nope: 1 } })),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    // a tenant-scoped route knows communityId
    await expect(
      guard.canActivate(contextOf('undeclared', { query: { communityId: 'acme' } })),
    ).resolves.toBe(true);
  });
});
