// Whole proto messages for the fakes' answers (nested messages are encoded as given, so each
// field is set).
import { randomBytes } from 'node:crypto';
import type { Certificate } from '@hallmark/proto/certificates/v1/certificates';

export const certificate = (over: Partial<Certificate> = {}): Certificate => ({
  id: 'cert_1',
  enterprise_id: 'ent_000000000000000000000001',
  token_id: 7,
  name: 'Lamp',
  image_url: 'https://img.test/l.png',
  metadata_json: '{"sku":"L1"}',
  metadata_hash: '0x00',
  batch_id: 'batch_1',
  holder_address: '0x' + '11'.repeat(20),
  status: 'minted',
  transaction_hash: '0xabc',
  block_number: 9,
  created_at: '2025-01-01T00:00:00.000Z',
  updated_at: '2025-01-01T00:00:00.000Z',
  provenance: [{ kind: 'minted', at: '2025-01-01T00:00:00.000Z' }],
  livemode: true,
  service_history: [],
  ...over,
});

export const certificateVoucher = (over: object = {}) => ({
  id: 'cv_1',
  url: 'https://hallmark.test/vouchers/cv_1',
  reference_number: 'REF-1',
  metadata_json: '{"name":"Lamp"}',
  certificate_id: 'cert_1',
  status: 'active',
  expires_at: '2030-01-01T00:00:00.000Z',
  created_at: '2025-01-01T00:00:00.000Z',
  livemode: true,
  ...over,
});

export const discountVoucher = (over: object = {}) => ({
  id: 'v_1',
  code: 'SAVE10',
  type: 'percentage',
  value: 10,
  status: 'active',
  uses_remaining: 5,
  max_uses: 5,
  created_at: '2025-01-01T00:00:00.000Z',
  livemode: true,
  enterprise_id: 'ent_1',
  times_used: 0,
  updated_at: '2025-01-01T00:00:00.000Z',
  ...over,
});

export const redemption = (over: object = {}) => ({
  success: true,
  voucher: { id: 'v_1', code: 'SAVE10', type: 'percentage', value: 10 },
  discount_applied: 100,
  original_amount: 1000,
  final_amount: 900,
  currency: 'USD',
  order_id: 'o_1',
  transaction_id: 'tx_1',
  redeemed_at: '2025-01-01T00:00:00.000Z',
  replayed: false,
  ...over,
});

export const webhookEndpoint = (over: object = {}) => ({
  id: 'we_1',
  url: 'https://shop.example/hook',
  events: ['voucher.redeemed'],
  status: 'enabled',
  created_at: '2025-01-01T00:00:00.000Z',
  updated_at: '2025-01-01T00:00:00.000Z',
  livemode: true,
  ...over,
});

/** An enterprise webhook subscription (wh_…) as notify answers it. */
export const subscription = (over: object = {}) => ({
  id: 'whs_1',
  url: 'https://shop.example/hook',
  events: ['voucher.created'],
  enabled: true,
  created_at: '2025-01-01T00:00:00.000Z',
  status: 'active',
  consecutive_failures: 0,
  ...over,
});

export const delivery = (over: object = {}) => ({
  id: 'wd_1',
  endpoint_id: 'we_1',
  event_id: 'evt_1',
  event_type: 'voucher.redeemed',
  status: 'pending',
  attempts: 0,
  max_attempts: 8,
  created_at: '2025-01-01T00:00:00.000Z',
  attempt_log: [],
  ...over,
});

export const pageInfo = { page: 1, limit: 20, total: 1, total_pages: 1 };

/** A whole ApiKey message (nested messages are encoded as given). */
export const apiKey = (over: object) => ({
  id: '',
  name: 'POS',
  type: 'enterprise',
  permissions: [],
  rate_limit: 0,
  expires_at: '',
  created_at: '2025-01-01T00:00:00.000Z',
  last_used_at: '',
  status: 'active',
  key_prefix: '',
  allowed_ips: [],
  livemode: true,
  created_by: 'user_1',
  requests_per_hour: 0,
  burst_limit: 0,
  access_level: '',
  revoked_at: '',
  ...over,
});

export const bulkJob = (over: object = {}) => ({
  id: 'job_A',
  form: 'csv',
  status: 'queued',
  total_count: 3,
  processed_count: 0,
  success_count: 0,
  failed_count: 0,
  created_at: '2025-01-01T00:00:00.000Z',
  updated_at: '2025-01-01T00:00:01.000Z',
  errors: [],
  vouchers: [],
  livemode: true,
  estimated_duration_s: 0,
  ...over,
});

/** One part of a multipart/form-data body (a file when it has a filename). */
export interface Part {
  name: string;
  content: string | Buffer;
  filename?: string;
}

/** A multipart/form-data body and its content-type header. */
export function multipart(parts: Part[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----hm${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    const type = p.filename !== undefined ? 'Content-Type: application/octet-stream\r\n' : '';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`));
    chunks.push(Buffer.isBuffer(p.content) ? p.content : Buffer.from(p.content));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(chunks),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

/** A bulk order-form voucher as BulkService answers it. */
export const bulkVoucher = (i: number) => ({
  id: `v_${i}`,
  url: `https://h.test/v/v_${i}`,
  reference_number: `REF-${i}`,
  metadata_json: JSON.stringify({ name: `Lamp ${i}`, sku: 'L1' }),
  certificate_id: `cert_${i}`,
  token_id: i,
  transaction_hash: '0xabc',
  block_number: 7,
  line_item_gid: 'gid://shopify/LineItem/1',
  row: i,
  expires_at: '2025-02-01T00:00:00.000Z',
});
