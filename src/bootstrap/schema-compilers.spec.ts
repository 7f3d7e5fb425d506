import { createFastifyAdapter } from './http-app';

/**
 * The API's Fastify loads its schema compilers only when a route declares a schema (none of the API's
 * does: test/operations/startup.e2e-spec.ts checks that the built API never loads them). A route that
 * does still gets Fastify's validation and serialisation, as without the lazy factory.
 */
describe("Fastify's schema compilers, required on first use", () => {
  it('validate a body and serialise a reply for a route that declares schemas', async () => {
    const fastify = createFastifyAdapter({ trustProxy: false }).getInstance();
    fastify.post(
      '/echo',
      {
        schema: {
          body: {
            type: 'object',
            required: ['n'],
            properties: { n: { type: 'integer', minimum: 1 } },
          },
          response: { 200: { type: 'object', properties: { n: { type: 'integer' } } } },
        },
      },
      async (request) => ({ ...(request.body as object), extra: 'left out by the reply schema' }),
    );
    try {
      const valid = await fastify.inject({ method: 'POST', url: '/echo', payload: { n: 2 } });
      expect(valid.statusCode).toBe(200);
      expect(valid.json()).toEqual({ n: 2 });
      const invalid = await fastify.inject({ method: 'POST', url: '/echo', payload: { n: 0 } });
      expect(invalid.statusCode).toBe(400);
      expect(invalid.body).toMatch(/must be >= 1/);
    } finally {
      await fastify.close();
    }
  });
});
