// routes/chain-settings/: the enterprise's chain settings (admin.*), one call to the
// certificates service each.
import { afterAll, beforeAll, beforeEach, describe } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { ENT, routeCase, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

const settings = (over: object = {}) => ({
  marketplaces: true,
  transfer_events: '',
  effective_transfer_events: 'per_token',
  source: 'marketplaces',
  updated_at: '2026-01-01T00:00:00.000Z',
  ...over,
});
const ADMIN = { scope: 'admin.*', wrongScope: 'transactions.read' };

describe('GET /api/v1/enterprise/chain-settings', () => {
  routeCase(() => h, 'chainSettings', {
    ...ADMIN,
    req: { method: 'GET', url: '/api/v1/enterprise/chain-settings' },
    call: 'getChainSettings',
    answer: () =>
      settings({
        marketplaces: false,
        effective_transfer_events: 'consecutive',
        source: 'deployment',
        updated_at: '',
      }),
    status: 200,
    shape: {
      marketplaces: false,
      transferEvents: null,
      effectiveTransferEvents: 'consecutive',
      source: 'deployment',
      updatedAt: null,
    },
    sent: { principal: { enterprise_id: ENT } },
    error: new HallmarkError('service_unavailable'),
  });
});

describe('PUT /api/v1/enterprise/chain-settings', () => {
  routeCase(() => h, 'chainSettings', {
    ...ADMIN,
    req: {
      method: 'PUT',
      url: '/api/v1/enterprise/chain-settings',
      payload: { marketplaces: true, transferEvents: 'consecutive' },
    },
    call: 'setChainSettings',
    answer: () =>
      settings({
        transfer_events: 'consecutive',
        effective_transfer_events: 'consecutive',
        source: 'enterprise',
      }),
    status: 200,
    shape: { marketplaces: true, transferEvents: 'consecutive', source: 'enterprise' },
    sent: { marketplaces: true, transfer_events: 'consecutive' },
    bad: { payload: { marketplaces: true, transferEvents: 'erc721' }, param: 'transferEvents' },
    error: new HallmarkError('service_unavailable'),
  });
});
