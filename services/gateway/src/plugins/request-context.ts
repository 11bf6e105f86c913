// Every request gets a `req_…` id: on the response as `x-request-id`, in every error body,
// in every log line, and in gRPC metadata to the services (through async context).
import { REQUEST_ID_HEADER, runWithContext } from '@hallmark/kit';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export default fp(async function requestContext(app: FastifyInstance) {
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    // Run the rest of the request's hooks and handler inside the context.
    runWithContext({ requestId: request.id }, done);
  });
});
