// The one place errors become HTTP responses: domain errors from services (rebuilt by
// the gRPC client), schema validation failures, body parsing failures, unknown routes
// (404) and known paths with another method (405), all in the surface's style.
import { HallmarkError, newId, REQUEST_ID_HEADER } from '@hallmark/kit';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import FindMyWay from 'find-my-way';
import { renderError, surfaceOf } from '../surface.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export function send(reply: FastifyReply, request: FastifyRequest, err: HallmarkError) {
  if (err.httpStatus === 429 && typeof err.extras.retry_after === 'number') {
    void reply.header('retry-after', String(err.extras.retry_after));
  }
  return reply
    .status(err.httpStatus)
    .type('application/json')
    .send(renderError(err, surfaceOf(request.url), request.id));
}

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** Turns ajv errors into the spec's codes, naming the offending parameter. */
export function fromValidation(errors: AjvError[], context: string): HallmarkError {
  const list = errors.map((e) => {
    const base = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
    if (e.keyword === 'required') {
      const field = [base, e.params.missingProperty].filter(Boolean).join('.');
      return { kind: 'parameter_missing' as const, field, message: `Missing required parameter: ${field}.` };
    }
    if (e.keyword === 'additionalProperties') {
      const field = [base, e.params.additionalProperty].filter(Boolean).join('.');
      return { kind: 'parameter_unknown' as const, field, message: `Unknown parameter: ${field}.` };
    }
    const field = base || context;
    return {
      kind: 'parameter_invalid' as const,
      field,
      message: `Invalid ${field}: ${e.message ?? 'invalid value'}.`,
    };
  });
  // A misspelt field usually explains the rest (it is also "missing"), so name it first.
  const rank = { parameter_unknown: 0, parameter_missing: 1, parameter_invalid: 2 };
  const first = [...list].sort((a, b) => rank[a.kind] - rank[b.kind])[0]!;
  return new HallmarkError(first.kind, {
    param: first.field,
    message: first.message,
    extras: { errors: list.map(({ field, message }) => ({ field, message })) },
  });
}

function toHallmarkError(
  err: FastifyError & { validation?: AjvError[]; validationContext?: string },
): HallmarkError {
  if (err instanceof HallmarkError) return err;
  if (err.validation) return fromValidation(err.validation, err.validationContext ?? 'body');
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new HallmarkError('invalid_content_type', { message: 'Content-Type must be application/json.' });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new HallmarkError('payload_too_large');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new HallmarkError('malformed_json', { message: 'The JSON body is empty.' });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new HallmarkError('malformed_json', { message: 'The body does not match its Content-Length.' });
  }
  if (err instanceof SyntaxError || err.code?.startsWith('FST_ERR_CTP_INVALID_JSON')) {
    return new HallmarkError('malformed_json');
  }
  // Any other client error Fastify raises keeps its class, never becomes a 5xx.
  switch (err.statusCode) {
    case 404:
      return new HallmarkError('resource_not_found');
    case 405:
      return new HallmarkError('method_not_allowed');
    case 413:
      return new HallmarkError('payload_too_large');
    case 415:
      return new HallmarkError('invalid_content_type');
  }
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return new HallmarkError('parameter_invalid', { message: 'The request is invalid.' });
  }
  return new HallmarkError('internal_error', { cause: err });
}

/**
 * Errors the router raises before any hook runs (a path parameter past `maxParamLength`, a
 * URL that does not decode): the envelope with a request id like every other answer. A
 * too-long parameter keeps HTTP's 414.
 */
export function frameworkError(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  void reply.header(REQUEST_ID_HEADER, request.id);
  const tooLong = err.code === 'FST_ERR_MAX_PARAM_LENGTH';
  const e = new HallmarkError('parameter_invalid', {
    message: tooLong ? 'A path parameter is too long.' : 'The URL is not valid (bad percent-encoding).',
    param: 'path',
  });
  return reply
    .status(tooLong ? 414 : e.httpStatus)
    .type('application/json')
    .send(renderError(e, surfaceOf(request.url), request.id));
}

/**
 * Errors Node's HTTP parser raises before there is a request (headers past 16 KB, bytes that
 * are not HTTP, a client that never finishes): the envelope with a fresh request id instead
 * of Fastify's own body. The path cannot be trusted yet, so it is the versioned envelope.
 */
export function clientError(err: NodeJS.ErrnoException, socket: Socket) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const status =
    err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const id = newId('request');
  const message =
    status === 431
      ? 'The request line and headers are larger than 16 KB.'
      : status === 408
        ? 'The request was not received in time.'
        : 'The request is not valid HTTP.';
  const body = JSON.stringify(renderError(new HallmarkError('parameter_invalid', { message }), 'v1', id));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n${REQUEST_ID_HEADER}: ${id}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export default fp(async function errors(app: FastifyInstance) {
  // A shadow router of every registered path, to tell 405 from 404.
  const known = FindMyWay();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of methods)
      if (m !== 'HEAD' && m !== 'OPTIONS') known.on(m as 'GET', route.url, () => undefined);
  });

  app.setErrorHandler((err: FastifyError, request, reply) => {
    const e = toHallmarkError(err);
    if (e.httpStatus >= 500) request.log.error({ err }, 'request failed');
    return send(reply, request, e);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const allowed = METHODS.filter((m) => known.find(m, path));
    if (allowed.length > 0) {
      void reply.header('allow', allowed.join(', '));
      return send(
        reply,
        request,
        new HallmarkError('method_not_allowed', {
          message: `${request.method} is not supported on ${path}. Allowed: ${allowed.join(', ')}.`,
        }),
      );
    }
    return send(
      reply,
      request,
      new HallmarkError('resource_not_found', { message: `No route ${request.method} ${path}.` }),
    );
  });
});
