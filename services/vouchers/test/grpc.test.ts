// The service over a real gRPC server and client: requests and results cross the wire
// intact, and refusals arrive as the same HallmarkError (code, param, HTTP status).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  bind,
  createGrpcClient,
  createLogger,
  HallmarkError,
  startGrpcServer,
  type GrpcClient,
  type RunningGrpcServer,
} from '@hallmark/kit';
import {
  VouchersServiceClient,
  VouchersServiceService,
  type VouchersServiceServer,
} from '@hallmark/proto/vouchers/v1/vouchers';
import { principal, startTestService, type TestService } from './helpers.js';

let svc: TestService;
let server: RunningGrpcServer;
let client: GrpcClient<VouchersServiceClient>;

beforeAll(async () => {
  svc = await startTestService();
  server = await startGrpcServer({
    name: 'vouchers-test',
    address: '127.0.0.1:0',
    services: [bind<VouchersServiceServer>(VouchersServiceService, svc.api)],
    log: createLogger('vouchers-test', 'silent'),
    protoFiles: ['hallmark/vouchers/v1/vouchers.proto'],
  });
  client = createGrpcClient(VouchersServiceClient, `127.0.0.1:${server.port}`);
});

afterAll(async () => {
  client.close();
  await server.shutdown(1000);
  await svc.close();
});

describe('VouchersService over gRPC', () => {
  it('creates, redeems, replays and refuses with typed errors end to end', async () => {
    const p = principal({ livemode: false });
    const v = await client.api.createVoucher({
      principal: p,
      code: 'Wire2024',
      type: 'percentage',
      value: 15,
      max_uses: 1,
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(v).toMatchObject({ code: 'Wire2024', status: 'active', uses_remaining: 1, livemode: false });
    expect(v.description).toBeUndefined(); // absent optional stays absent (JSON null), not ''

    const r = await client.api.redeemVoucher({
      principal: p,
      code: 'wire2024',
      order_id: 'o-1',
      amount: 999,
      currency: 'usd',
    });
    expect(r).toMatchObject({
      success: true,
      voucher: { id: v.id, code: 'Wire2024', type: 'percentage', value: 15 },
      discount_applied: 150,
      original_amount: 999,
      final_amount: 849,
      currency: 'USD',
    });
    await expect(
      client.api.redeemVoucher({
        principal: p,
        code: 'Wire2024',
        order_id: 'o-1',
        amount: 999,
        currency: 'USD',
      }),
    ).resolves.toEqual({ ...r, replayed: true });

    const refused = await client.api
      .redeemVoucher({ principal: p, code: 'Wire2024', order_id: 'o-2', amount: 999, currency: '' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(HallmarkError);
    expect(refused).toMatchObject({ code: 'voucher_max_uses_reached', param: 'code', httpStatus: 422 });

    const dup = await client.api
      .createVoucher({ principal: p, code: 'WIRE2024', type: 'fixed_amount', value: 5 })
      .catch((e: unknown) => e);
    expect(dup).toMatchObject({ code: 'voucher_code_exists', param: 'code', httpStatus: 409 });

    const list = await client.api.listVouchers({
      principal: p,
      page: { page: 1, limit: 10 },
      status: 'used',
    });
    expect(list.pagination).toEqual({ page: 1, limit: 10, total: 1, total_pages: 1 });
    expect(list.vouchers[0]).toMatchObject({ id: v.id, status: 'used', uses_remaining: 0 });

    const other = await client.api
      .getVoucher({ principal: principal(), voucher_id: v.id })
      .catch((e: unknown) => e);
    expect(other).toMatchObject({ code: 'resource_not_found', httpStatus: 404 });

    const cleared = await client.api.updateVoucher({ principal: p, voucher_id: v.id, clear_max_uses: true });
    expect(cleared).toMatchObject({ status: 'active' });
    expect(cleared.max_uses).toBeUndefined();
  });
});
