// routes/billing/: the cost preview.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { expectMapped, expectRefusals, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

describe('GET /api/billing/cost-preview/:count', () => {
  const req = { method: 'GET' as const, url: '/api/billing/cost-preview/10' };

  it('answers the price and gas for count certificates, to a billing or a bulk key', async () => {
    h.answer('bulk', 'costPreview', async (r) => ({
      count: r.count,
      currency: 'USD',
      unit_price: 50,
      total_price: 500,
      estimated_gas: 10_000,
      estimated_gas_per_certificate: 1000,
      batches: 1,
    }));
    for (const scope of ['billing.read', 'bulk:mint']) {
      const res = await h.app.inject({ ...req, headers: h.keyWith([scope]) });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        success: true,
        data: {
          count: 10,
          currency: 'USD',
          unitPrice: 50,
          totalPrice: 500,
          estimatedGas: 10_000,
          estimatedGasPerCertificate: 1000,
          batches: 1,
          note: 'Failed certificates are not charged.',
        },
      });
    }
  });

  it('refuses a count that is not a whole number from 1 to 50,000 with 400 naming count, before any call', async () => {
    for (const count of ['0', '-1', '1.5', '50001', 'ten']) {
      const res = await h.app.inject({
        method: 'GET',
        url: `/api/billing/cost-preview/${count}`,
        headers: h.session,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ success: false, param: 'count' });
    }
    expect(h.calls).toEqual([]);
  });

  it('is 401 without a credential, 403 without billing.read or bulk:mint', async () => {
    await expectRefusals(h, req, h.keyWith(['users.read']));
  });

  it("maps the service's errors to the api envelope", async () => {
    await expectMapped(h, ['bulk', 'costPreview'], new HallmarkError('service_unavailable'), {
      ...req,
      headers: h.session,
    });
  });
});
