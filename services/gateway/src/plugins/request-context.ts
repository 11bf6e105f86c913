// Every request gets a request id: the caller's `X-Request-Id` when it is well-formed (8–64
// characters of letters, digits and `_ - . :`, starting with a letter or digit; kit
// `REQUEST_ID_PATTERN`), else a fresh `req_…`. It is on the response as `x-request-id`, in
// every error body, in every log line, and in gRPC metadata to the services (through async
// context). With tracing on, the request is also a server span — the child of a caller's
// W3C `traceparent` — active for the rest of the request's hooks and handler. Every answer
// is counted in the RED histogram by route template (never the raw path).
import {
  histogram,
  REQUEST_ID_HEADER,
  runWithContext,
  SpanKind,
  contextFrom,
  startSpan,
  withTraceContext,
  type Span,
} from '@hallmark/kit';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyRequest {
    span?: Span;
  }
}

export default fp(async function requestContext(app: FastifyInstance) {
  const seconds = histogram(
    'hallmark_http_server_request_duration_seconds',
    'Gateway request duration by method, route template and status code',
    ['method', 'route', 'status_code'],
  );
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    const route = request.routeOptions.url ?? 'unmatched';
    const traced = startSpan(`${request.method} ${route}`, {
      kind: SpanKind.SERVER,
      parent: contextFrom(request.headers),
      attributes: {
        'http.request.method': request.method,
        'http.route': route,
        'hallmark.request_id': request.id,
      },
    });
    if (traced) request.span = traced.span;
    // Run the rest of the request's hooks and handler inside the context.
    withTraceContext(traced?.ctx, () => runWithContext({ requestId: request.id }, done));
  });
  app.addHook('onResponse', (request, reply, done) => {
    const status = reply.statusCode;
    seconds.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: String(status) },
      reply.elapsedTime / 1000,
    );
    if (request.span) {
      request.span.setAttribute('http.response.status_code', status);
      if (status >= 500) request.span.setStatus({ code: 2 });
      request.span.end();
    }
    done();
  });
});
