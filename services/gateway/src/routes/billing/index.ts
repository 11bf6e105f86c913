// The cost preview (spec › Billing): what minting `count` certificates costs, priced by the
// bulk service. Not a bulk-mint job route, so it lives in its own resource.
import type { FastifyInstance } from 'fastify';
import { principalOf, type RouteDeps } from '../shared.js';

/** Spec › Limits 4: up to 50,000 items per job. */
const MAX_PREVIEW_COUNT = 50_000;

export default async function billing(app: FastifyInstance, { clients }: RouteDeps) {
  app.get<{ Params: { count: number } }>(
    '/api/billing/cost-preview/:count',
    {
      // A bulk key may preview what its jobs cost; billing keys too (architecture › scopes).
      config: { auth: 'either', scope: ['billing.read', 'bulk:mint'] },
      schema: {
        tags: ['Billing'],
        summary: 'Price and estimated gas for minting `count` certificates',
        description:
          '`{success, data:{count, currency, unitPrice, totalPrice (minor units), estimatedGas, ' +
          'estimatedGasPerCertificate, batches, note}}`. Failed certificates are not charged.',
        params: {
          type: 'object',
          required: ['count'],
          additionalProperties: false,
          properties: { count: { type: 'integer', minimum: 1, maximum: MAX_PREVIEW_COUNT } },
        },
      },
    },
    async (request) => {
      const p = await clients.bulk.costPreview(
        { principal: principalOf(request), count: request.params.count },
        { idempotent: true },
      );
      return {
        success: true,
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
  );
}
