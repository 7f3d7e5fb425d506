import type { FastifyInstance } from 'fastify';
import { JsonText } from '../common/http/json-text';
import { createFastifyAdapter } from './http-app';

describe('a result already written as JSON text (JsonText)', () => {
  const adapter = createFastifyAdapter({ trustProxy: false });
  const fastify = adapter.getInstance<FastifyInstance>();
  const page =
    '{"items":[{"id":"a","content":"say \\"hi\\""}],"page":1,"limit":20,"total":1,"hasMore":false}';
  fastify.get('/page', (_request, reply) => adapter.reply(reply, new JsonText(page)));
  // how Nest answers on the raw response (FastifyAdapter.isNativeResponse)
  fastify.get('/raw', (_request, reply) => adapter.reply(reply.raw, new JsonText(page)));
  afterAll(() => fastify.close());

  it.each(['/page', '/raw'])('%s: goes out as it is inside the success envelope, as JSON', async (url) => {
    const res = await fastify.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toBe(`{"success":true,"data":${page}}`);
    expect(res.json()).toEqual({ success: true, data: JSON.parse(page) });
  });

  it('gives its shape to anything that serialises it itself', () => {
    expect(JSON.stringify({ data: new JsonText(page) })).toBe(`{"data":${JSON.stringify(JSON.parse(page))}}`);
  });
});
