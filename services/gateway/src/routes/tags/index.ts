// NFC tags (tap to verify, docs/nfc-tags.md): the registry under a certificate and the page a
// tag's tap opens.
import type { FastifyInstance } from 'fastify';
import { endpointsOf, registerEndpoints } from '../../endpoint/define.js';
import type { RouteDeps } from '../shared.js';
import * as registry from './registry.js';
import * as tap from './tap.js';

export default async function routes(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, endpointsOf(registry, tap));
}
