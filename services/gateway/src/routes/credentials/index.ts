// Verifiable credentials (issue 32, docs/credentials.md): the public documents anyone verifies
// a certificate with, without Hallmark's word for it (`documents.ts`: a certificate's
// credential and proof bundle, the hosted issuer DID documents, the status lists), and the
// enterprise's issuer identity and key rotation (`issuer.ts`). Each route is one call to the
// certificates service's CredentialsService.
import type { FastifyInstance } from 'fastify';
import { endpointsOf, registerEndpoints } from '../../endpoint/define.js';
import type { RouteDeps } from '../shared.js';
import * as documents from './documents.js';
import * as issuer from './issuer.js';

export default async function routes(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, endpointsOf(documents, issuer));
}
