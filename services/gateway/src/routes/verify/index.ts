// The verification pages (`/verify/:id`, its QR codes, token metadata); `events.ts` records
// `document.verified` for them.
import type { FastifyInstance } from 'fastify';
import { registerEndpoints } from '../../endpoint/define.js';
import type { RouteDeps } from '../shared.js';
import { getTokenMetadata, getVerifyPage, getVerifyQrPng, getVerifyQrSvg } from './pages.js';

export default async function routes(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, [getVerifyPage, getVerifyQrSvg, getVerifyQrPng, getTokenMetadata]);
}
