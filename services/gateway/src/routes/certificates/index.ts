// Certificates (unversioned surface): the public read, health, setting a warranty, and lost
// and stolen (report, clear, list, recover, the clearing policy), and service records (append,
// list, the owner's accept or refuse), and the enterprise's search.
import type { FastifyInstance } from 'fastify';
import { endpointsOf, registerEndpoints } from '../../endpoint/define.js';
import type { RouteDeps } from '../shared.js';
import * as health from './health.js';
import * as publicRead from './public.js';
import * as search from './search.js';
import * as serviceRecords from './service-records.js';
import * as stolen from './stolen.js';
import * as warranty from './warranty.js';

export default async function routes(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, endpointsOf(publicRead, health, search, warranty, stolen, serviceRecords));
}
