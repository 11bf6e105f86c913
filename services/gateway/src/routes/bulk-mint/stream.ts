// Status answers too long to hold: a JSON answer whose one long array is written page by page
// as the bulk service streams it (the order form's `vouchers=all`, a CSV job's many errors).
import type { Job } from '@hallmark/proto/bulk/v1/bulk';
import type { FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import type { Clients } from '../../clients.js';
import { principalOf } from '../shared.js';
import { presentCsvJob, presentOrderJob, presentVoucherResult } from './present.js';

const MARK = '\u0000list\u0000';

/**
 * A JSON answer whose one long array is written page by page as the bulk service streams it,
 * so neither process ever holds it all: `shape` is the answer with MARK where the array goes.
 */
function streamedAnswer<T>(
  shape: unknown,
  pages: AsyncIterable<T[]>,
  present: (item: T) => unknown,
): Readable {
  const body = JSON.stringify(shape);
  const at = body.indexOf(JSON.stringify(MARK));
  const head = body.slice(0, at);
  const tail = body.slice(at + JSON.stringify(MARK).length);
  return Readable.from(
    (async function* () {
      yield `${head}[`;
      let first = true;
      for await (const page of pages) {
        if (page.length === 0) continue;
        const items = page.map((item) => JSON.stringify(present(item))).join(',');
        yield first ? items : `,${items}`;
        first = false;
      }
      yield `]${tail}`;
    })(),
  );
}

async function* pagesOf<P, T>(stream: AsyncIterable<P>, items: (page: P) => T[]): AsyncIterable<T[]> {
  for await (const page of stream) yield items(page);
}

/** The order-form status with every voucher (StreamJobVouchers), streamed. */
export function streamedOrderJob(clients: Clients, request: FastifyRequest, job: Job): Readable {
  const principal = principalOf(request);
  return streamedAnswer(
    { success: true, job: { ...presentOrderJob(job), results: { vouchers: MARK, nextCursor: null } } },
    pagesOf(clients.bulkStreams.streamJobVouchers({ principal, job_id: job.id }), (p) => p.vouchers),
    presentVoucherResult,
  );
}

/** The CSV-form status of a job with more row errors than fit inline: every one (StreamJobErrors), streamed. */
export function streamedCsvJob(clients: Clients, request: FastifyRequest, job: Job): Readable {
  const principal = principalOf(request);
  return streamedAnswer(
    { success: true, data: { ...presentCsvJob(job), errors: MARK } },
    pagesOf(clients.bulkStreams.streamJobErrors({ principal, job_id: job.id }), (p) => p.errors),
    (e) => ({ row: e.row, error: e.error }),
  );
}
