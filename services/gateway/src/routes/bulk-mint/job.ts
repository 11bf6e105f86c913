// The spec's bulk job shapes (Resources › Bulk mint job, CSV form and JSON (order) form) as
// the answers carry them; present.ts builds them from the proto Job. `CsvJob` is the resource
// (a component of the document); the order form's shapes carry the order line's metadata
// through as it came, so their answers are documented by these schemas, not serialised by them.
import { defineResource } from '../../endpoint/resource.js';
import { int, list, nullable, oneOf, str, time, Type, type TSchema } from '../../endpoint/schema.js';

export const STATUSES = ['queued', 'processing', 'completed', 'failed', 'cancelled'];
const jobStatus = oneOf(STATUSES);

/** `oneOf` as the document has always shown it (TypeBox's Union would write `anyOf`). */
export const exactlyOne = (schemas: TSchema[]) => Type.Unsafe<unknown>({ oneOf: schemas });

const retriedAt = Type.String({
  format: 'date-time',
  maxLength: 40,
  description: 'When the last retry was accepted; absent when never retried',
});

/** A CSV job's identity and counts: what its 202 and every later read both carry. */
const counts = {
  jobId: str(64),
  status: jobStatus,
  totalCount: int(),
  processedCount: int(),
  successCount: int(),
  failedCount: int(),
};

export const CsvJob = defineResource(
  'CsvJob',
  Type.Object(
    {
      ...counts,
      failureCount: int('The same as `failedCount` (the order form’s name), so either name reads both forms'),
      createdAt: time,
      updatedAt: Type.Optional(time),
      retriedAt: Type.Optional(retriedAt),
      completedAt: Type.Optional(time),
      estimatedCompletionTime: Type.Optional(time),
      errors: Type.Optional(list(Type.Object({ row: int(), error: str(2000) }), 50_000)),
      error: Type.Optional(str(2000)),
      pollUrl: Type.Optional(str(200, 'Where to poll the job (also the 202’s Location)')),
    },
    { description: 'A bulk job, CSV form (spec › Resources › Bulk mint job, CSV form)' },
  ),
  {
    example: {
      jobId: 'job_2bX9qL0mT7cZp4aN1yV8kW3e',
      status: 'completed',
      totalCount: 1000,
      processedCount: 1000,
      successCount: 998,
      failedCount: 2,
      failureCount: 2,
      createdAt: '2025-06-01T10:00:00Z',
      updatedAt: '2025-06-01T10:03:12Z',
      completedAt: '2025-06-01T10:03:12Z',
      errors: [
        { row: 17, error: 'recipientEmail: not a valid e-mail address' },
        { row: 500, error: "imageFile 'missing.png' is not in the images ZIP" },
      ],
    },
  },
);

const voucher = {
  id: str(64),
  url: str(2048),
  referenceNumber: str(255),
  metadata: Type.Unsafe<Record<string, unknown>>({
    type: 'object',
    description: 'What the order line carried',
  }),
};

const summary = {
  totalItems: int(),
  successCount: int(),
  failureCount: int(),
  failedCount: int('The same as `failureCount` (the CSV form’s name), so either name reads both forms'),
};

const OrderJob = Type.Object({
  id: str(64),
  status: oneOf(['pending', 'processing', 'completed', 'failed', 'cancelled']),
  progress: Type.Object({
    current: int(),
    total: int(),
    percentage: Type.Integer({ format: 'int32', minimum: 0, maximum: 100 }),
  }),
  summary: Type.Object({ ...summary, processingTime: Type.Optional(int('Milliseconds')) }),
  results: Type.Object({
    nextCursor: Type.Optional(
      nullable(
        str(
          16,
          'The next page of `vouchers`: send it as `vouchersCursor`; null on the last page (and with `vouchers=all`)',
        ),
      ),
    ),
    vouchers: list(
      Type.Object({
        ...voucher,
        certificateId: str(64),
        tokenId: nullable(int()),
        transactionHash: nullable(str(66)),
        blockNumber: nullable(int()),
        lineItemGid: nullable(str(255)),
      }),
      100_000,
    ),
  }),
  createdAt: time,
  completedAt: nullable(time),
  retriedAt: Type.Optional(retriedAt),
  error: Type.Optional(str(2000)),
});

const yes = Type.Literal(true);

/** GET /api/bulk-mint/{jobId}: the job in the form it was created in. */
export const JobStatus = exactlyOne([
  Type.Object({ success: yes, job: OrderJob }, { description: 'Order (JSON) form' }),
  Type.Object({ success: yes, data: CsvJob }, { description: 'CSV form' }),
]);

/** The order form's 201: synchronous (finished within the call) or asynchronous. */
export const CreatedOrderJob = exactlyOne([
  Type.Object(
    {
      success: yes,
      jobId: str(64),
      status: oneOf(['completed', 'failed']),
      summary: Type.Object(summary),
      vouchers: list(Type.Object(voucher), 10_000),
    },
    { description: 'Synchronous: the job finished within the call' },
  ),
  Type.Object(
    {
      success: yes,
      jobId: str(64),
      status: Type.Literal('pending'),
      estimatedDuration: int('Seconds'),
      pollUrl: str(200),
    },
    { description: 'Asynchronous: poll `pollUrl`' },
  ),
]);

/** The CSV form's 202: the new job's counts (0 until it runs) and where to poll. */
export const CreatedCsvJob = Type.Object({
  success: yes,
  data: Type.Object({
    ...counts,
    failureCount: int('The same as `failedCount` (the order form’s name)'),
    createdAt: time,
    pollUrl: str(200, 'Where to poll the job (also the Location header)'),
  }),
});

export { jobStatus };
