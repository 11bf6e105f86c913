// The cost preview (spec › Billing): what minting `count` certificates costs, priced by the
// bulk service. Not a bulk-mint job route, so it lives in its own resource.
import type { FastifyInstance } from 'fastify';
import { defineEndpoint, registerEndpoints } from '../../endpoint/define.js';
import { closed, int, str, Type, wrapped } from '../../endpoint/schema.js';
import { principalOf, type RouteDeps } from '../shared.js';

/** Spec › Limits 4: up to 50,000 items per job. */
const MAX_PREVIEW_COUNT = 50_000;

export const getCostPreview = defineEndpoint({
  method: 'GET',
  url: '/api/billing/cost-preview/:count',
  operationId: 'getCostPreview',
  tags: ['Billing'],
  summary: 'Price and estimated gas for minting `count` certificates',
  description:
    '`{success, data:{count, currency, unitPrice, totalPrice (minor units), estimatedGas, ' +
    'estimatedGasPerCertificate, batches, note}}`. Failed certificates are not charged.',
  // A bulk key may preview what its jobs cost; billing keys too (architecture › scopes).
  access: { auth: 'either', scope: ['billing.read', 'bulk:mint'] },
  params: closed({ count: Type.Integer({ minimum: 1, maximum: MAX_PREVIEW_COUNT }) }),
  responses: {
    200: {
      description: 'Price (minor units, currency `USD`) and gas estimate',
      schema: wrapped(
        Type.Object({
          count: int(),
          currency: Type.String({ pattern: '^[A-Z]{3}$', maxLength: 3 }),
          unitPrice: int(),
          totalPrice: int(),
          estimatedGas: Type.Optional(int()),
          estimatedGasPerCertificate: Type.Optional(int()),
          batches: Type.Optional(int()),
          note: Type.Optional(str(200)),
        }),
      ),
    },
  },
  handler: async (request, { clients }) => {
    const p = await clients.bulk.costPreview(
      { principal: principalOf(request), count: request.params.count },
      { idempotent: true },
    );
    return {
      success: true as const,
      data: {
        count: p.count,
        currency: p.currency,
        unitPrice: p.unit_price,
        totalPrice: p.total_price,
        estimatedGas: p.estimated_gas,
        estimatedGasPerCertificate: p.estimated_gas_per_certificate,
        batches: p.batches,
        note: 'Failed certificates are not charged.',
      },
    };
  },
});

export default async function billing(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, [getCostPreview]);
}
