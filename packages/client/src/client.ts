// The client: the generated openapi-fetch client (every path, parameter and body typed from
// /openapi.json) behind the transport (auth, retries, one error type), with typed shortcuts
// that answer the success body directly and throw HallmarkError otherwise, async iterators
// over every paginated list, the bulk CSV upload and file downloads.
import createClient, { type Client, type FetchResponse, type MaybeOptionalInit } from 'openapi-fetch';
import type { HttpMethod, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import type { components, operations, paths } from '../gen/openapi.js';
import { multipartBody, replayable, type FileSource, type UploadProgress } from './upload.js';
import { send, type Credentials, type TransportOptions } from './transport.js';

export type Schemas = components['schemas'];
export type { operations, paths };

export interface HallmarkOptions extends Omit<TransportOptions, 'credentials'> {
  /** Default: HALLMARK_BASE_URL, else http://127.0.0.1:8080. */
  baseUrl?: string;
  /** An API key (pk_live_…, pk_test_…, pk_restricted_…). Default: HALLMARK_API_KEY. */
  apiKey?: string;
  /** A user session token (JWT). Default: HALLMARK_TOKEN. */
  token?: string;
}

type InitParam<Init> =
  RequiredKeysOf<Init> extends never
    ? [(Init & { [key: string]: unknown })?]
    : [Init & { [key: string]: unknown }];

/** The success body of `method path`. */
export type Data<M extends HttpMethod, P extends keyof paths, I = object> = M extends keyof paths[P]
  ? NonNullable<FetchResponse<paths[P][M] & Record<string | number, any>, I, `${string}/${string}`>['data']>
  : never;

type Shortcut<M extends HttpMethod> = <
  P extends PathsWithMethod<paths, M>,
  I extends MaybeOptionalInit<paths[P], M>,
>(
  url: P,
  ...init: InitParam<I>
) => Promise<Data<M, P, I>>;

export const VERSION = '0.9.0';

/** The answer to a CSV upload: `{success, data:{jobId, status, totalCount, …}}`. */
export type CsvJobCreated = Extract<Data<'post', '/api/bulk-mint'>, { data: unknown }>;

export class Hallmark {
  readonly baseUrl: string;
  /** The generated client; error answers are thrown as HallmarkError, never returned. */
  readonly api: Client<paths>;
  readonly get: Shortcut<'get'>;
  readonly post: Shortcut<'post'>;
  readonly patch: Shortcut<'patch'>;
  readonly delete: Shortcut<'delete'>;
  private readonly transport: TransportOptions;

  constructor(opts: HallmarkOptions = {}) {
    const env = typeof process === 'undefined' ? {} : process.env;
    this.baseUrl = (opts.baseUrl ?? env.HALLMARK_BASE_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
    const apiKey = opts.apiKey ?? (opts.token ? undefined : env.HALLMARK_API_KEY);
    const token = opts.token ?? (apiKey ? undefined : env.HALLMARK_TOKEN);
    const credentials: Credentials = apiKey ? { apiKey } : token ? { token } : undefined;
    this.transport = { userAgent: `hallmark-client/${VERSION}`, ...opts, credentials };
    this.api = createClient<paths>({
      baseUrl: this.baseUrl,
      fetch: (req: Request) => send(() => req.clone(), this.transport),
    });
    const unwrap =
      (method: 'GET' | 'POST' | 'PATCH' | 'DELETE') => async (url: string, init?: Record<string, unknown>) =>
        ((await (this.api[method] as any)(url, init)) as { data: unknown }).data;
    this.get = unwrap('GET') as never;
    this.post = unwrap('POST') as never;
    this.patch = unwrap('PATCH') as never;
    this.delete = unwrap('DELETE') as never;
  }

  /** A raw request through the same auth, retries and errors (downloads, pages). */
  fetch(urlPath: string, init: RequestInit = {}): Promise<Response> {
    return send(() => new Request(this.baseUrl + urlPath, init), this.transport);
  }

  /**
   * Uploads a CSV (and optionally the ZIP of its images) as a bulk mint job: POST
   * /api/bulk-mint, multipart. Paths and bytes are streamed from disk/memory; progress is
   * reported per chunk.
   */
  async createBulkJob(input: {
    csv: FileSource;
    images?: FileSource;
    createBatch?: boolean;
    onProgress?: (p: UploadProgress) => void;
    signal?: AbortSignal;
  }): Promise<CsvJobCreated> {
    const parts = [
      { name: 'metadata', source: input.csv, contentType: 'text/csv' },
      ...(input.images ? [{ name: 'images', source: input.images, contentType: 'application/zip' }] : []),
    ];
    const fields: Record<string, string> =
      input.createBatch === undefined ? {} : { createBatch: String(input.createBatch) };
    const reusable = replayable(parts);
    const res = await send(
      async () => {
        // Built for each attempt: paths and bytes are read again; a stream is sent once.
        const b = await multipartBody(parts, fields, input.onProgress);
        return new Request(`${this.baseUrl}/api/bulk-mint`, {
          method: 'POST',
          body: b.body,
          headers: {
            'content-type': b.contentType,
            ...(b.length === undefined ? {} : { 'content-length': String(b.length) }),
          },
          duplex: 'half',
          signal: input.signal,
        } as RequestInit);
      },
      { ...this.transport, maxRetries: reusable ? this.transport.maxRetries : 0 },
    );
    return (await res.json()) as CsvJobCreated;
  }
}
