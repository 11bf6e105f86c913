// OpenAPI 3.1 generated from the route schemas, served at /openapi.json, browsable at /docs.
// openapi/finish.ts completes it (operationIds, security, responses, errors, the guide).
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { finishDocument } from '../openapi/finish.js';

export default fp(async function openapi(app: FastifyInstance) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Hallmark API', version: '0.9.0' },
    },
    transformObject: (doc) =>
      finishDocument((doc as { openapiObject: Record<string, unknown> }).openapiObject, app.routeCatalog),
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
});
