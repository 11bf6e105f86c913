// POST /api/bulk-mint, both forms on one path, told apart by Content-Type:
// - multipart/form-data (CSV form): bounded read of `metadata`/`images`/`createBatch`, then
//   CreateCsvJob; 202 because the job runs asynchronously (spec › What the service does 3).
// - application/json (order form): `Idempotency-Key` required; the body goes to
//   CreateOrderJob as received (the bulk service validates it); 201, sync or async body.
// Both need `bulk:mint`; rate groups `bulk_create` (CSV) and `bulk_json` (JSON).
import { HallmarkError } from '@hallmark/kit';
import type { FastifyRequest } from 'fastify';
import type { RateGroup } from '../../auth/types.js';
import { defineEndpoint } from '../../endpoint/define.js';
import { Type } from '../../endpoint/schema.js';
import { principalOf } from '../shared.js';
import { TAGS } from './common.js';
import { CSV_MAX_BYTES, readCsvForm, ZIP_MAX_BYTES } from './csv-upload.js';
import { CreatedCsvJob, CreatedOrderJob } from './job.js';
import { orderStatus, presentCreatedCsvJob, presentCreatedOrderJob } from './present.js';

/** Spec › Limits 4: up to 50,000 items per order job. */
const ORDER_BODY_LIMIT_BYTES = 32 * 1024 * 1024;
const IDEMPOTENCY_KEY_MAX = 512;

function formOf(request: FastifyRequest): 'csv' | 'order' | null {
  const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'multipart/form-data' ? 'csv' : type === 'application/json' ? 'order' : null;
}

function rateGroupFor(request: FastifyRequest): RateGroup | undefined {
  if (formOf(request) !== 'order') return 'bulk_create';
  // Spec › Limits: the JSON form allows 1,000 requests per hour, configurable per key. An
  // enterprise key stores that limit as its own hourly window, which always applies; a
  // second fixed 1,000 would undo a key configured higher.
  const key = request.auth?.key;
  return key?.type === 'enterprise' && key.rate_limit_per_hour > 0 ? undefined : 'bulk_json';
}

/** Content type and the JSON form's header, checked before any of the body is read. */
async function checkForm(request: FastifyRequest): Promise<void> {
  const form = formOf(request);
  if (!form) {
    throw new HallmarkError('invalid_content_type', {
      message: 'Content-Type must be multipart/form-data (CSV upload) or application/json (order form).',
    });
  }
  if (form === 'csv') return;
  const key = request.headers['idempotency-key'];
  if (typeof key !== 'string' || key.trim() === '') {
    throw new HallmarkError('parameter_missing', {
      param: 'Idempotency-Key',
      message:
        'The order form needs an Idempotency-Key header: {shop}#{orderId}#{lineItemGid}#{random_hash}.',
    });
  }
  if (key.length > IDEMPOTENCY_KEY_MAX) {
    throw new HallmarkError('parameter_invalid', {
      param: 'Idempotency-Key',
      message: `Idempotency-Key must be at most ${IDEMPOTENCY_KEY_MAX} characters.`,
    });
  }
}

/** A duplicate key's 409 names the existing job's status in the JSON form's terms. */
function withOrderStatus(err: unknown): unknown {
  if (!(err instanceof HallmarkError) || err.code !== 'resource_already_exists') return err;
  const status = err.extras.status;
  if (typeof status !== 'string') return err;
  return new HallmarkError(err.code, {
    message: err.message,
    param: err.param,
    extras: { ...err.extras, status: orderStatus(status) },
  });
}

const file = (description: string, maxLength: number) => ({
  type: 'string',
  format: 'binary',
  maxLength,
  description,
});

const csvFormSchema = {
  type: 'object',
  required: ['metadata'],
  properties: {
    metadata: file(
      `CSV, at most ${CSV_MAX_BYTES / 1024 / 1024} MB: name, description, imageUrl (unless images is sent), ` +
        'category, recipientEmail, recipientName?, imageFile? (the row’s file in the ZIP), attribute_<Name>*, ' +
        'expiryDays? (default 30), gtin? + serial? (GS1, both or neither), passportUrl? (https)',
      CSV_MAX_BYTES,
    ),
    images: file(
      `ZIP of the images named in the CSV, at most ${ZIP_MAX_BYTES / 1024 / 1024} MB`,
      ZIP_MAX_BYTES,
    ),
    createBatch: { type: 'string', enum: ['true', 'false'] },
  },
};

const orderFormSchema = {
  type: 'object',
  required: ['schemaVersion', 'metadata', 'externalContext'],
  properties: {
    schemaVersion: { type: 'string', enum: ['2025-09-01'] },
    metadata: {
      type: 'array',
      maxItems: 50_000,
      description: 'One item (expanded by line-item quantity) or one per unit',
      items: {
        type: 'object',
        required: ['name', 'description', 'imageUrl'],
        properties: {
          name: { type: 'string', maxLength: 200 },
          description: { type: 'string', maxLength: 2000 },
          imageUrl: { type: 'string', maxLength: 2048, description: 'HTTPS URL' },
          sku: { type: 'string', maxLength: 200 },
          serialNumber: { type: 'string', maxLength: 200 },
          warrantyExpiry: { type: 'string', maxLength: 40, description: 'ISO date' },
        },
      },
    },
    externalContext: {
      type: 'object',
      required: ['source', 'shop', 'orderId', 'lineItems'],
      properties: {
        source: { type: 'string', enum: ['shopify'] },
        shop: { type: 'string', maxLength: 255, description: 'Store domain, e.g. example.myshopify.com' },
        orderId: {
          type: 'string',
          maxLength: 64,
          pattern: '^gid://shopify/Order/[0-9]{1,20}$',
          description: 'gid://<platform>/Order/<number>',
        },
        lineItems: {
          type: 'array',
          maxItems: 50_000,
          items: {
            type: 'object',
            required: ['lineItemGid', 'quantity'],
            properties: {
              lineItemGid: { type: 'string', maxLength: 64, pattern: '^gid://shopify/LineItem/[0-9]{1,20}$' },
              quantity: { type: 'integer', format: 'int32', minimum: 1, maximum: 50_000 },
            },
          },
        },
      },
    },
  },
};

const DESCRIPTION = [
  'multipart/form-data (CSV form): answers **202 Accepted** with `{success, data:{jobId, status, totalCount,',
  'processedCount, successCount, failedCount, createdAt, pollUrl}}` and a `Location` header (the poll URL):',
  'the job is queued (counts start at 0; rows are validated by the job) and processed asynchronously;',
  'poll GET /api/bulk-mint/{jobId}. A file over its limit, a missing `metadata`, an unknown part or a',
  "`createBatch` other than 'true'/'false' is a 400 naming the part. Rate group bulk_create (10 jobs/hour).",
  '',
  'application/json (order form): needs `Idempotency-Key` ({shop}#{orderId}#{lineItemGid}#{random_hash}).',
  'Answers 201: up to 5 items synchronously `{success, jobId, status: completed, summary, vouchers}`, more',
  'as `{success, jobId, status: pending, estimatedDuration, pollUrl}`. A reused key is 409',
  '`{success: false, error, existingJobId, status}`. Rate group bulk_json (1,000/hour, or the key’s own).',
].join('\n');

export const createBulkMintJob = defineEndpoint({
  method: 'POST',
  url: '/api/bulk-mint',
  operationId: 'createBulkMintJob',
  tags: TAGS,
  summary: 'Create a bulk mint job: CSV upload (202) or order JSON (201)',
  description: DESCRIPTION,
  access: { auth: 'either', scope: 'bulk:mint', rateGroup: 'bulk_create', rateGroupFor },
  bodyLimit: ORDER_BODY_LIMIT_BYTES,
  onRequest: checkForm,
  // The schemas document both forms; what is valid depends on the form and is checked by
  // checkForm, readCsvForm and (for the order body) the bulk service.
  validatorCompiler: () => () => true,
  headers: Type.Object({
    'idempotency-key': Type.Optional(
      Type.String({
        maxLength: 1024,
        description: 'Required with application/json: {shop}#{orderId}#{lineItemGid}#{random_hash}',
      }),
    ),
  }),
  // One body per content type (Fastify's `content` form): the body arrives unparsed
  // (multipart is read by readCsvForm, JSON stays the raw string index.ts's parser leaves).
  body: Type.Unsafe<unknown>({
    content: {
      'multipart/form-data': { schema: csvFormSchema },
      'application/json': { schema: orderFormSchema },
    },
  }),
  responses: {
    201: {
      description: 'Order form: the job (sync or async body)',
      schema: CreatedOrderJob,
      contentType: 'application/json',
    },
    202: {
      description: 'CSV form: the job is queued and processed asynchronously',
      schema: CreatedCsvJob,
    },
  },
  handler: async (request, { clients, reply }) => {
    const principal = principalOf(request);
    if (formOf(request) === 'csv') {
      const form = await readCsvForm(request);
      const job = await clients.bulk.createCsvJob({
        principal,
        csv: form.csv,
        zip: form.zip,
        create_batch: form.createBatch,
        csv_filename: form.csvFilename,
        zip_filename: form.zipFilename,
      });
      const created = presentCreatedCsvJob(job);
      reply.status(202).header('location', created.pollUrl);
      return { success: true as const, data: created };
    }
    const body = request.body;
    if (typeof body !== 'string' || body.trim() === '') {
      throw new HallmarkError('malformed_json', { message: 'The JSON body is empty.' });
    }
    const job = await clients.bulk
      .createOrderJob({
        principal,
        idempotency_key: request.headers['idempotency-key'] as string,
        body_json: body,
      })
      .catch((err: unknown) => {
        throw withOrderStatus(err);
      });
    return presentCreatedOrderJob(job);
  },
});
