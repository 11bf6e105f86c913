// The files of the bulk surface: a job's results (csv or zip, streamed from the bulk service
// as it makes them) and the public CSV template. Non-JSON answers: declared by content type.
import { HallmarkError } from '@hallmark/kit';
import { Readable } from 'node:stream';
import { defineEndpoint } from '../../endpoint/define.js';
import { closed, oneOf, Type } from '../../endpoint/schema.js';
import { principalOf } from '../shared.js';
import { DOWNLOAD, PUBLIC, TAGS } from './common.js';
import { attachment } from './present.js';

export const downloadBulkMintResults = defineEndpoint({
  method: 'GET',
  url: '/api/bulk-mint/:jobId/download/:type',
  operationId: 'downloadBulkMintResults',
  tags: TAGS,
  summary: 'Download a job’s results: csv (one row per item) or zip (images and metadata)',
  description:
    'csv columns: row, name, status, certificateId, voucherId, referenceNumber, recipientEmail, error. ' +
    'Sent as an attachment.',
  access: DOWNLOAD,
  params: closed({
    jobId: Type.String({ minLength: 1, maxLength: 64 }),
    type: oneOf(['csv', 'zip']),
  }),
  responses: {
    200: {
      description:
        '`csv`: one line per row; `zip`: metadata/<row>.json and images/<row>.<ext> per certificate',
      contentType: 'application/octet-stream',
    },
  },
  handler: async (request, { clients, reply }) => {
    const { jobId: id, type } = request.params;
    // The file streams from the bulk service as it is made (ExportJobStream): its first
    // message names it (and fails before any byte for an unknown job), the rest are bytes.
    const stream = clients.bulkStreams.exportJobStream({
      principal: principalOf(request),
      job_id: id,
      format: type,
    });
    const chunks = stream[Symbol.asyncIterator]();
    const first = await chunks.next();
    const file = first.done ? undefined : first.value;
    const body = Readable.from(
      (async function* () {
        for (let c = await chunks.next(); !c.done; c = await chunks.next()) {
          if (c.value.content.length > 0) yield Buffer.from(c.value.content);
        }
      })(),
    );
    return reply
      .header(
        'content-type',
        file?.content_type || (type === 'csv' ? 'text/csv; charset=utf-8' : 'application/zip'),
      )
      .header('content-disposition', attachment(file?.filename || `${id}-results.${type}`, `results.${type}`))
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'private, no-store')
      .send(body);
  },
});

export const getBulkMintCsvTemplate = defineEndpoint({
  method: 'GET',
  url: '/api/bulk-mint/template/csv',
  operationId: 'getBulkMintCsvTemplate',
  tags: TAGS,
  summary: 'CSV template for the CSV form (public)',
  description: 'Every column with an example row, as a text/csv attachment.',
  access: PUBLIC,
  responses: { 200: { description: 'The CSV template', contentType: 'text/csv' } },
  handler: async (_request, { clients, reply }) => {
    const file = await clients.bulk.csvTemplate({}, { idempotent: true });
    return reply
      .header('content-type', file.content_type || 'text/csv; charset=utf-8')
      .header('content-disposition', attachment(file.filename, 'bulk-mint-template.csv'))
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'public, max-age=300')
      .send(file.content);
  },
});

/**
 * `/api/bulk-mint/template` is no job id: a 404 pointing at the template, not the 401 the job
 * route (`/api/bulk-mint/:jobId`, authenticated) would give an anonymous caller.
 */
export const bulkMintTemplateHint = defineEndpoint({
  method: 'GET',
  url: '/api/bulk-mint/template',
  hidden: true,
  access: PUBLIC,
  responses: { 404: { description: 'Points at GET /api/bulk-mint/template/csv' } },
  handler: async () => {
    throw new HallmarkError('resource_not_found', {
      message:
        'No route GET /api/bulk-mint/template. The CSV template is at GET /api/bulk-mint/template/csv.',
    });
  },
});
