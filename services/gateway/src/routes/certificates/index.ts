// Certificates (unversioned surface): the public read, health and setting a warranty.
import type { FastifyInstance } from 'fastify';
import { registerEndpoints } from '../../endpoint/define.js';
import type { RouteDeps } from '../shared.js';
import { getCertificateHealth } from './health.js';
import { getPublicCertificate } from './public.js';
import { updateCertificateWarranty } from './warranty.js';

export default async function routes(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, [getPublicCertificate, getCertificateHealth, updateCertificateWarranty]);
}
