// The endpoint declaration (src/endpoint/) is the one truth of an endpoint: Fastify validates
// requests and serialises answers with its schemas, and the OpenAPI document takes its
// operationId, answers and resource components from it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Fastify, { type FastifyInstance } from 'fastify';
import { defineEndpoint, endpointsOf, registerEndpoints } from '../../src/endpoint/define.js';
import { defineResource } from '../../src/endpoint/resource.js';
import { closed, str, Type } from '../../src/endpoint/schema.js';
import { finishDocument } from '../../src/openapi/finish.js';
import errors from '../../src/plugins/errors.js';
import requestContext from '../../src/plugins/request-context.js';
import type { RouteDeps } from '../../src/routes/shared.js';
import { startHarness, type Harness } from './harness.js';

const Thing = defineResource('Thing', Type.Object({ id: str(64), name: str(100) }));

const createThing = defineEndpoint({
  method: 'POST',
  url: '/things',
  operationId: 'createThing',
  body: closed({ name: Type.String({ minLength: 1, maxLength: 100 }) }),
  responses: { 201: { description: 'The thing', schema: Thing } },
  // The extra field stands for a service record's internals leaking into an answer.
  handler: async (request) => ({ id: 'thing_1', name: request.body.name, secret: 'internal' }),
});

// A caller's own object carried through (a bulk job's voucher metadata): a schema would empty it.
const echoThing = defineEndpoint({
  method: 'POST',
  url: '/things/echo',
  operationId: 'echoThing',
  body: closed({ metadata: Type.Record(Type.String(), Type.String()) }),
  responses: {
    200: {
      description: 'The metadata as sent',
      schema: Type.Object({ metadata: Type.Unsafe<object>({ type: 'object' }) }),
      contentType: 'application/json',
    },
  },
  handler: async (request) => ({ metadata: request.body.metadata }),
});

let app: FastifyInstance;
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  app = Fastify({ logger: false, ajv: { customOptions: { removeAdditional: false, allErrors: true } } });
  await app.register(requestContext);
  await app.register(errors);
  registerEndpoints(app, {} as RouteDeps, [createThing, echoThing]);
  await app.ready();
}, 120_000);
afterAll(async () => {
  await app.close();
  await h.close();
});

describe('a declared endpoint', () => {
  it('answers with its first declared 2xx status, serialised by the declared schema only', async () => {
    const res = await app.inject({ method: 'POST', url: '/things', payload: { name: 'lamp' } });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ id: 'thing_1', name: 'lamp' });
  });

  it('refuses a body its schema refuses before the handler runs, in the error envelope', async () => {
    const res = await app.inject({ method: 'POST', url: '/things', payload: { name: '' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param: 'name' });
  });

  it('sends a JSON answer declared with a contentType as the handler built it, its schema documentation only', async () => {
    const metadata = { sku: 'L1', colour: 'brass' };
    const res = await app.inject({ method: 'POST', url: '/things/echo', payload: { metadata } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ metadata });
  });
});

describe('the OpenAPI document of declared endpoints', () => {
  it('takes operationId, answers and resource components from the declarations', async () => {
    const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const redeem = doc.paths['/api/v1/vouchers/redeem'].post;
    expect(redeem.operationId).toBe('redeemVoucher');
    expect(redeem.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Redemption',
    });
    const list = doc.paths['/api/v1/vouchers'].get.responses['200'].content['application/json'].schema;
    expect(list.properties.vouchers.items).toEqual({ $ref: '#/components/schemas/Voucher' });
    expect(doc.components.schemas.Voucher.properties.code).toEqual({ type: 'string', maxLength: 32 });
    expect(doc.components.schemas.Voucher.example.id).toMatch(/^vouch_/);
  });

  it('fails the build when a route is not a declaration: there is no side table to name it', () => {
    const doc = { paths: { '/things': { post: { responses: {} } } } };
    expect(() =>
      finishDocument(doc, [{ method: 'POST', url: '/things', auth: 'public', scopes: [] }]),
    ).toThrow(/not declared with defineEndpoint.*POST \/things/);
  });
});

describe('a route group registers what its modules export', () => {
  it('finds every declared endpoint among a module’s exports, once, and nothing else', () => {
    const listThings = defineEndpoint({
      method: 'GET',
      url: '/things',
      operationId: 'listThings',
      responses: { 200: { description: 'The things', schema: Type.Array(Thing) } },
      handler: async () => [],
    });
    // A module's namespace: endpoints beside a schema, a helper and a look-alike object.
    const things = { createThing, listThings, Thing, helper: () => 1, lookalike: { ...listThings } };
    const again = { createThing };
    expect(endpointsOf(things, again)).toEqual([createThing, listThings]);
  });
});
