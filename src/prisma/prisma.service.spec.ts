import { Client } from 'pg';
import { withPlanOnce } from './prisma.service';

/** What pg makes of a connection string (connectionParameters is not in its types). */
function parse(connectionString: string): Record<string, unknown> {
  const { connectionParameters } = new Client({ connectionString }) as unknown as {
    connectionParameters: Record<string, unknown>;
  };
  return { ...connectionParameters, password: connectionParameters.password };
}

describe('withPlanOnce (the prepared-statement pool plans each statement once per connection)', () => {
  const saved = process.env.PGOPTIONS;
  afterEach(() => {
    if (saved === undefined) delete process.env.PGOPTIONS;
    else process.env.PGOPTIONS = saved;
  });

  it('adds plan_cache_mode and jit to the startup options pg sends', () => {
    delete process.env.PGOPTIONS;
    const url = withPlanOnce('postgresql://app:pw@db.internal:5433/community?sslmode=disable');
    expect(parse(url)).toMatchObject({
      host: 'db.internal',
      port: 5433,
      user: 'app',
      password: 'pw',
      database: 'community',
      options: '-c plan_cache_mode=force_generic_plan -c jit=off',
    });
  });

  it("keeps DATABASE_URL's own options (pg would let them replace the pool's), else PGOPTIONS", () => {
    process.env.PGOPTIONS = '-c work_mem=8MB';
    expect(parse(withPlanOnce('postgresql://db/x?options=-c%20search_path%3Dapp')).options).toBe(
      '-c search_path=app -c plan_cache_mode=force_generic_plan -c jit=off',
    );
    expect(parse(withPlanOnce('postgresql://db/x')).options).toBe(
      '-c work_mem=8MB -c plan_cache_mode=force_generic_plan -c jit=off',
    );
  });

  it('keeps a socket directory given as host', () => {
    delete process.env.PGOPTIONS;
    expect(parse(withPlanOnce('postgresql:///x?host=/var/run/postgresql'))).toMatchObject({
      host: '/var/run/postgresql',
      database: 'x',
    });
  });
});
