import { DEFAULT_SERVER_URL } from '../../src/bootstrap/openapi-document';
import { createTestApp } from '../utils/app';
import { call } from '../utils/http';

/** Where Swagger UI's "Try it out" sends its requests: the first server of /api/docs-json. */
async function documentedServer(env: Record<string, string>): Promise<string> {
  const t = await createTestApp(env);
  try {
    const res = await call(t.app, 'GET', '/api/docs-json');
    expect(res.status).toBe(200);
    const [server] = res.body.servers as { url: string; variables: { baseUrl: { default: string } } }[];
    expect(server.url).toBe('{baseUrl}');
    return server.variables.baseUrl.default;
  } finally {
    await t.close();
  }
}

describe('the OpenAPI document names the address the API is configured with (docs/api.md#the-openapi-document)', () => {
  it('PUBLIC_BASE_URL when it is set, without a trailing slash', async () => {
    expect(await documentedServer({ PUBLIC_BASE_URL: 'https://community.example.com/' })).toBe(
      'https://community.example.com',
    );
  });

  it('else localhost on PORT', async () => {
    const env: Record<string, string> = { PORT: '4123' };
    // an empty value reads as unset
    if (process.env.PUBLIC_BASE_URL) env.PUBLIC_BASE_URL = '';
    const server = await documentedServer(env);
    expect(server).toBe('http://localhost:4123');
    expect(server).not.toBe(DEFAULT_SERVER_URL);
  });
});
