// Reading the CSV form of POST /api/bulk-mint (multipart/form-data) into bounded Buffers.
// Every refusal is a 400 naming the part, raised before the bulk service is called; the
// rest of a refused upload is drained, so the client reads its 400 instead of stalling.
import { HallmarkError } from '@hallmark/kit';
import type { MultipartFile, MultipartValue } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';

const MB = 1024 * 1024;
/** Spec › Limits 5: a CSV file of about 10 MB or less. */
export const CSV_MAX_BYTES = 10 * MB;
export const ZIP_MAX_BYTES = 100 * MB;
/** Multipart framing and the small field on top of both files. */
const FRAMING_BYTES = MB;

/** Busboy's limits: the backstop behind the per-part checks below. */
export const MULTIPART_LIMITS = {
  fileSize: ZIP_MAX_BYTES,
  files: 2,
  fields: 1,
  parts: 3,
  fieldNameSize: 100,
  fieldSize: 100,
  headerPairs: 100,
};

export interface CsvForm {
  csv: Buffer;
  csvFilename?: string;
  zip?: Buffer;
  zipFilename?: string;
  createBatch: boolean;
}

const tooLarge = (param: string, limit: number) =>
  new HallmarkError('payload_too_large', {
    param,
    message: `The ${param} file is larger than ${limit / MB} MB.`,
  });

const unknownPart = (name: string) =>
  new HallmarkError('parameter_unknown', {
    param: name.slice(0, 100),
    message: `Unknown form part '${name.slice(0, 100)}': the parts are metadata (file), images (file) and createBatch.`,
  });

const sentTwice = (param: string) =>
  new HallmarkError('parameter_invalid', { param, message: `${param} may be sent only once.` });

/** Reads one file part, refusing it as soon as it passes `limit`. */
async function readFile(part: MultipartFile, param: string, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of part.file as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge(param, limit);
    chunks.push(chunk);
  }
  // Busboy stops at its own fileSize limit and marks the stream truncated.
  if (part.file.truncated) throw tooLarge(param, limit);
  return Buffer.concat(chunks, size);
}

function parseCreateBatch(part: MultipartValue): boolean {
  const value = typeof part.value === 'string' ? part.value.trim() : '';
  if (!part.valueTruncated && (value === 'true' || value === 'false')) return value === 'true';
  throw new HallmarkError('parameter_invalid', {
    param: 'createBatch',
    message: "createBatch must be 'true' or 'false'.",
  });
}

/** Busboy and @fastify/multipart refusals, as 400s a client can act on. */
function fromMultipartError(err: unknown): HallmarkError {
  if (err instanceof HallmarkError) return err;
  const code = (err as { code?: string }).code;
  switch (code) {
    case 'FST_FILES_LIMIT':
      return new HallmarkError('parameter_unknown', {
        message: 'At most two files may be sent: metadata and images.',
      });
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return new HallmarkError('parameter_unknown', {
        message: 'The form has at most three parts: metadata, images and createBatch.',
      });
    case 'FST_REQ_FILE_TOO_LARGE':
      return tooLarge('images', ZIP_MAX_BYTES);
  }
  return new HallmarkError('parameter_invalid', { message: 'The multipart/form-data body is malformed.' });
}

/** Stops parsing and discards the rest of the upload so the connection stays usable. */
function drain(request: FastifyRequest): void {
  request.raw.unpipe();
  request.raw.resume();
}

/** The whole form, or a 400 before anything reaches the bulk service. */
export async function readCsvForm(request: FastifyRequest): Promise<CsvForm> {
  const declared = Number(request.headers['content-length']);
  if (declared > CSV_MAX_BYTES + ZIP_MAX_BYTES + FRAMING_BYTES) {
    drain(request);
    throw new HallmarkError('payload_too_large', {
      message: 'The upload is larger than a 10 MB CSV file and a 100 MB ZIP.',
    });
  }
  const form: Partial<CsvForm> = {};
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        const param = part.fieldname;
        if (param === 'createBatch') {
          throw new HallmarkError('parameter_invalid', {
            param,
            message: 'createBatch must be a form field.',
          });
        }
        if (param !== 'metadata' && param !== 'images') throw unknownPart(param);
        const isMetadata = param === 'metadata';
        if (isMetadata ? form.csv : form.zip) throw sentTwice(param);
        const bytes = await readFile(part, param, isMetadata ? CSV_MAX_BYTES : ZIP_MAX_BYTES);
        // A file input left empty arrives as a nameless, empty file: as if not sent.
        if (bytes.length === 0 && !part.filename) continue;
        if (isMetadata) [form.csv, form.csvFilename] = [bytes, part.filename || undefined];
        else [form.zip, form.zipFilename] = [bytes, part.filename || undefined];
      } else if (part.fieldname === 'createBatch') {
        // Busboy's `fields: 1` refuses a second one (FST_FIELDS_LIMIT).
        form.createBatch = parseCreateBatch(part);
      } else if (part.fieldname === 'metadata' || part.fieldname === 'images') {
        throw new HallmarkError('parameter_invalid', {
          param: part.fieldname,
          message: `${part.fieldname} must be sent as a file.`,
        });
      } else {
        throw unknownPart(part.fieldname);
      }
    }
  } catch (err) {
    drain(request);
    throw fromMultipartError(err);
  }
  if (!form.csv) {
    throw new HallmarkError('parameter_missing', {
      param: 'metadata',
      message: 'Missing required parameter: metadata (the CSV file).',
    });
  }
  return { ...form, csv: form.csv, createBatch: form.createBatch ?? false };
}
