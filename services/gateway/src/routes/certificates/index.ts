// Certificates (unversioned surface): the public read and health, then setting a warranty.
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../shared.js';
import certificates from './public.js';
import certificateWarranty from './warranty.js';

export default async function routes(app: FastifyInstance, deps: RouteDeps) {
  await app.register(certificates, deps);
  await app.register(certificateWarranty, deps);
}
