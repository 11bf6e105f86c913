// OpenAPI 3.1 generated from the route schemas, served at /openapi.json, browsable at /docs.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export default fp(async function openapi(app: FastifyInstance) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Hallmark API',
        version: '0.1.0',
        description:
          'Certificates of authenticity on an EVM chain, bulk issuance, discount vouchers, API keys and signed webhooks. ' +
          'The versioned surface lives under /api/v1 (error envelope); the unversioned surface under /api (success flag).\n\n' +
          'Every route: a string holding NUL or another C0 control other than tab, line feed and carriage return is a ' +
          '400 parameter_invalid naming the field. Session tokens may live at most 24 hours. After 50 refused ' +
          'credentials in a minute a client address (or, after 20, a key prefix) gets 429 with Retry-After for 5 ' +
          'minutes, except for valid session tokens and keys already known good. Test mode: a pk_test_ key works on ' +
          'test-mode data only, other keys on live data only; a user session works in live mode unless the request ' +
          'sends `Hallmark-Mode: test` (a key may only repeat its own mode in that header).',
      },
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'API key (pk_live_/pk_test_/pk_restricted_) or session JWT',
          },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
});
