// The README's "From code" example, run as is (plain Node ESM) by the client's tests.
/* global console */
import { Hallmark, HallmarkError, lists } from '@hallmark/client';

// Base URL and credential from HALLMARK_BASE_URL and HALLMARK_API_KEY (or HALLMARK_TOKEN).
const hm = new Hallmark();

// Every path, parameter and body is typed from the API's OpenAPI document.
const voucher = await hm.post('/api/v1/vouchers', {
  body: { code: 'SPRING25', type: 'percentage', value: 25, max_uses: 100 },
});
console.log(`created ${voucher.id} (${voucher.code})`);

const quote = await hm.post('/api/v1/vouchers/validate', {
  body: { code: 'SPRING25', order_id: 'order-1001', amount: 8000 },
});
console.log(`8000 with SPRING25 costs ${quote.final_amount}`);

// Lists are async iterators: pages are fetched as the loop goes.
for await (const v of lists(hm).vouchers({ status: 'active' })) console.log(`active: ${v.code}`);

// Both response surfaces fail with one error type.
try {
  await hm.get('/api/v1/vouchers/{voucher_id}', { params: { path: { voucher_id: 'vouch_missing' } } });
} catch (err) {
  if (!(err instanceof HallmarkError)) throw err;
  console.log(`${err.status} ${err.type} ${err.code} ${err.request_id}`);
}
