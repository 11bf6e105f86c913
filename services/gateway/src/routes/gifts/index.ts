// The gift surface (spec › Endpoints › Certificates and gifts; architecture.md › Gifts),
// served by the certificates service's GiftService over gRPC: create, read, resend, revoke,
// the claim page and the claim.
import type { FastifyInstance } from 'fastify';
import { registerEndpoints } from '../../endpoint/define.js';
import type { RouteDeps } from '../shared.js';
import { claimGift, getGiftClaimPage } from './claim.js';
import { createGift } from './create.js';
import { getGift, resendGift, revokeGift } from './manage.js';

export default async function gifts(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, [createGift, getGift, resendGift, revokeGift, getGiftClaimPage, claimGift]);
}
