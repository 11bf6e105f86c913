// One declaration per endpoint: method, path, operationId, docs, access (auth, scope, rate
// group), request schemas, response schemas per status and the handler. Registering it gives
// Fastify the `schema` it validates requests with (AJV, so plugins/errors.ts maps failures to
// parameter_missing / parameter_invalid) and serialises answers with, and puts the
// declaration in the route's config, where the route catalogue hands it to the OpenAPI
// document (operationId, success responses, resource components: openapi/finish.ts).
import type { Static, TSchema } from '@sinclair/typebox';
import type {
  FastifyContextConfig,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  RouteOptions,
} from 'fastify';
import type { RouteDeps } from '../routes/shared.js';

/** OPTIONS: a route that answers it itself (the Digital Link resolver, whose standard asks for it). */
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
type Maybe = TSchema | undefined;

export interface EndpointResponse {
  description: string;
  /** The JSON answer: serialised with it (fields it does not name are not sent). */
  schema?: TSchema;
  /**
   * A non-JSON answer (a file, a page): documented as binary of this type (or as `schema`, when
   * given), never serialised. Neither field: an answer without a body (a redirect).
   */
  contentType?: string;
}

/** What routes put in `config`: who may call (plugins/auth.ts) and how often (rate-limit.ts). */
export type Access = Pick<FastifyContextConfig, 'auth' | 'scope' | 'rateGroup' | 'rateGroupFor'>;

/** By status: `200`, `302`, or a class (`'4XX'`) for an answer the endpoint writes itself. */
type Responses = Record<number | string, EndpointResponse>;

type In<T> = T extends TSchema ? Static<T> : undefined;
type Out<R> = {
  [K in keyof R]: R[K] extends { schema: infer S extends TSchema } ? Static<S> : unknown;
}[keyof R];

/** What a handler gets beside the request: the route dependencies and the reply (headers, status). */
export interface EndpointContext extends RouteDeps {
  reply: FastifyReply;
}

export interface Endpoint<
  P extends Maybe = Maybe,
  Q extends Maybe = Maybe,
  B extends Maybe = Maybe,
  R extends Responses = Responses,
> {
  method: Method;
  /** Fastify form: `/api/v1/vouchers/:voucher_id`. */
  url: string;
  /** Stable: generated clients and the CLI name their methods after it. Required unless hidden. */
  operationId?: string;
  /** Kept out of the OpenAPI document (probes). */
  hidden?: boolean;
  tags?: string[];
  summary?: string;
  description?: string;
  access?: Access;
  params?: P;
  querystring?: Q;
  body?: B;
  /** Request headers, documented and validated (no handler typing: read them as strings). */
  headers?: TSchema;
  /** A body limit of its own (bytes), for the rare endpoint that takes more than the default. */
  bodyLimit?: number;
  /** Answers this endpoint's errors itself (a page for a browser, not the JSON envelope). */
  errorHandler?: RouteOptions['errorHandler'];
  /** Checks run before the body is read (POST /api/bulk-mint: the Content-Type and its header). */
  onRequest?: RouteOptions['onRequest'];
  /**
   * For the one body AJV cannot check (POST /api/bulk-mint: multipart or a raw JSON string, by
   * Content-Type): the schemas then only document it, and the handler checks it.
   */
  validatorCompiler?: RouteOptions['validatorCompiler'];
  /**
   * Answers by status. The first 2xx is the status set before the handler runs; a handler
   * answering another declared one sets it on `ctx.reply`.
   */
  responses: R;
  handler: (
    request: FastifyRequest<{ Params: In<P>; Querystring: In<Q>; Body: In<B> }>,
    ctx: EndpointContext,
  ) => Promise<Out<R>>;
}

/** What defineEndpoint made: `endpointsOf` finds them among a module's exports. */
const declared = new WeakSet<Endpoint>();

/** Declares an endpoint; the handler's request and answer types come from the schemas. */
export function defineEndpoint<
  P extends Maybe = undefined,
  Q extends Maybe = undefined,
  B extends Maybe = undefined,
  R extends Responses = Responses,
>(endpoint: Endpoint<P, Q, B, R>): Endpoint {
  if (!endpoint.hidden && !endpoint.operationId)
    throw new Error(`${endpoint.method} ${endpoint.url}: an operationId is required`);
  declared.add(endpoint as unknown as Endpoint);
  return endpoint as unknown as Endpoint;
}

/**
 * Every endpoint the given modules export (`import * as vouchers from './vouchers.js'`), in
 * the order of the modules and, within one, of the export names: a route group's index lists
 * its modules, never its endpoints, so adding an endpoint to a module touches that file alone.
 */
export function endpointsOf(...modules: readonly object[]): Endpoint[] {
  const found = new Set<Endpoint>();
  for (const module of modules)
    for (const value of Object.values(module))
      if (typeof value === 'object' && value !== null && declared.has(value as Endpoint))
        found.add(value as Endpoint);
  return [...found];
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The declaration a route was registered from (endpoint/define.ts). */
    endpoint?: Endpoint;
  }
}

const defined = <T extends object>(o: T) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/** Registers each declared endpoint on `app` (a route group's plugin). */
export function registerEndpoints(app: FastifyInstance, deps: RouteDeps, endpoints: readonly Endpoint[]) {
  for (const endpoint of endpoints) {
    const statuses = Object.keys(endpoint.responses);
    const success = Number(statuses.find((s) => s.startsWith('2')) ?? 200);
    const response = Object.fromEntries(
      Object.entries<EndpointResponse>(endpoint.responses)
        .filter(([, r]) => r.schema && !r.contentType)
        .map(([status, r]) => [status, r.schema]),
    );
    app.route({
      method: endpoint.method,
      url: endpoint.url,
      // A public endpoint is open to every origin (plugins/cors.ts): no code of its own.
      config: { ...endpoint.access, endpoint, crossOrigin: endpoint.access?.auth === 'public' },
      ...defined({
        bodyLimit: endpoint.bodyLimit,
        errorHandler: endpoint.errorHandler,
        onRequest: endpoint.onRequest,
        validatorCompiler: endpoint.validatorCompiler,
      }),
      schema: defined({
        hide: endpoint.hidden,
        tags: endpoint.tags,
        summary: endpoint.summary,
        description: endpoint.description,
        params: endpoint.params,
        querystring: endpoint.querystring,
        body: endpoint.body,
        headers: endpoint.headers,
        response: Object.keys(response).length ? response : undefined,
      }),
      handler: async (request, reply) => {
        reply.status(success);
        return endpoint.handler(request as never, { ...deps, reply });
      },
    });
  }
}
