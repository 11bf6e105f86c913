// Success answers of the bulk jobs (spec › Resources › Bulk mint job, CSV form and JSON
// (order) form), field by field as routes/bulk/present.ts builds them. Merged into SUCCESS;
// DECLARED_2XX replaces the open schemas the create route declares for serialisation (those
// stay open there: the route must pass the voucher metadata through as it is).
import { CSV_JOB_REQUIRED } from './resources.js';
import { int, list, nullable, obj, ref, str, time } from './schema-helpers.js';

const yes = { type: 'boolean', const: true };
const jobStatus = { type: 'string', enum: ['queued', 'processing', 'completed', 'failed', 'cancelled'] };

const Voucher = {
  id: str(64),
  url: str(2048),
  referenceNumber: str(255),
  metadata: { type: 'object', description: 'What the order line carried' },
};
const voucherRequired = ['id', 'url', 'referenceNumber', 'metadata'];

const summary = {
  totalItems: int(),
  successCount: int(),
  failureCount: int(),
  failedCount: int('The same as `failureCount` (the CSV form’s name), so either name reads both forms'),
};

const OrderJob = obj(['id', 'status', 'progress', 'summary', 'results', 'createdAt', 'completedAt'], {
  id: str(64),
  status: { type: 'string', enum: ['pending', 'processing', 'completed', 'failed', 'cancelled'] },
  progress: obj(['current', 'total', 'percentage'], {
    current: int(),
    total: int(),
    percentage: { type: 'integer', format: 'int32', minimum: 0, maximum: 100 },
  }),
  summary: obj(['totalItems', 'successCount', 'failureCount', 'failedCount'], {
    ...summary,
    processingTime: int('Milliseconds'),
  }),
  results: obj(['vouchers'], {
    nextCursor: nullable(
      str(
        16,
        'The next page of `vouchers`: send it as `vouchersCursor`; null on the last page (and with `vouchers=all`)',
      ),
    ),
    vouchers: list(
      obj([...voucherRequired, 'certificateId', 'tokenId', 'transactionHash', 'blockNumber', 'lineItemGid'], {
        ...Voucher,
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
  retriedAt: { ...time, description: 'When the last retry was accepted; absent when never retried' },
  error: str(2000),
});

const createdOrderJob = {
  oneOf: [
    obj(
      ['success', 'jobId', 'status', 'summary', 'vouchers'],
      {
        success: yes,
        jobId: str(64),
        status: { type: 'string', enum: ['completed', 'failed'] },
        summary: obj(['totalItems', 'successCount', 'failureCount', 'failedCount'], summary),
        vouchers: list(obj(voucherRequired, Voucher), 10_000),
      },
      'Synchronous: the job finished within the call',
    ),
    obj(
      ['success', 'jobId', 'status', 'estimatedDuration', 'pollUrl'],
      {
        success: yes,
        jobId: str(64),
        status: { type: 'string', const: 'pending' },
        estimatedDuration: int('Seconds'),
        pollUrl: str(200),
      },
      'Asynchronous: poll `pollUrl`',
    ),
  ],
};

const createdCsvJob = obj(['success', 'data'], {
  success: yes,
  data: obj([...CSV_JOB_REQUIRED, 'pollUrl'], {
    jobId: str(64),
    status: jobStatus,
    totalCount: int(),
    processedCount: int(),
    successCount: int(),
    failedCount: int(),
    failureCount: int('The same as `failedCount` (the order form’s name)'),
    createdAt: time,
    pollUrl: str(200, 'Where to poll the job (also the Location header)'),
  }),
});

type Success = { status: string; description: string; schema?: unknown };

export const SUCCESS_BULK: Record<string, Success> = {
  'GET /api/bulk-mint/{jobId}': {
    status: '200',
    description: 'The job in the form it was created in: `{success, job}` (order) or `{success, data}` (CSV)',
    schema: {
      oneOf: [
        obj(['success', 'job'], { success: yes, job: OrderJob }, 'Order (JSON) form'),
        obj(['success', 'data'], { success: yes, data: ref('CsvJob') }, 'CSV form'),
      ],
    },
  },
  'PATCH /api/bulk-mint/{jobId}/items/{row}': {
    status: '200',
    description: 'The row, corrected: failed until the job is retried',
    schema: obj(['success', 'data'], {
      success: yes,
      data: obj(['jobId', 'row', 'name', 'status', 'error'], {
        jobId: str(64),
        row: int(),
        name: str(500),
        status: str(32),
        error: { type: ['string', 'null'], maxLength: 2000 },
      }),
    }),
  },
  'POST /api/bulk-mint/{jobId}/retry': {
    status: '200',
    description: 'The failed items are queued again',
    schema: obj(['success', 'data'], {
      success: yes,
      data: obj(['jobId', 'status', 'retriedCount', 'message'], {
        jobId: str(64),
        status: jobStatus,
        retriedCount: int(),
        message: str(500),
      }),
    }),
  },
  'POST /api/bulk-mint/{jobId}/cancel': {
    status: '200',
    description: 'The job’s state after the cancel (a finished job is left as it was)',
    schema: obj(['success', 'data'], {
      success: yes,
      data: obj(['jobId', 'status', 'message', 'processedCount', 'totalCount'], {
        jobId: str(64),
        status: jobStatus,
        message: str(500),
        processedCount: int(),
        totalCount: int(),
      }),
    }),
  },
};

/** Documented schemas of 2xx answers a route declares itself (open there, for serialisation). */
export const DECLARED_2XX: Record<string, Record<string, unknown>> = {
  'POST /api/bulk-mint': { '201': createdOrderJob, '202': createdCsvJob },
};
