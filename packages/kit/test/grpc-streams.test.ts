// The one streaming style of the gRPC client: server streams as async iterables
// (`client.streams.<method>`) and client streams as uploads (`client.uploads.<method>`), each
// carrying the request id like a unary call and failing as a HallmarkError.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  MediaServiceClient,
  MediaServiceService,
  type GetMediaRequest,
  type PutMediaRequest,
} from '@hallmark/proto/certificates/v1/media';
import {
  createGrpcClient,
  createLogger,
  notFound,
  startGrpcServer,
  type GrpcClient,
  type RunningGrpcServer,
} from '../src/index.js';
import { currentRequestId, runWithContext } from '../src/context.js';

const log = createLogger('grpc-streams-test', 'silent');
const REQUEST_ID = 'req_STREAMSTREAMSTREAMSTREAM';
let server: RunningGrpcServer;
let client: GrpcClient<MediaServiceClient>;
/** The request id each handler saw, by RPC. */
const seen: Record<string, string | undefined> = {};

const ref = (sha256: string) => ({ sha256, content_type: 'image/png', size: 0, width: 0, height: 0 });

beforeAll(async () => {
  server = await startGrpcServer({
    name: 'grpc-streams-test',
    address: '127.0.0.1:0',
    log,
    services: [
      {
        definition: MediaServiceService,
        handlers: {
          async putMedia(requests: AsyncIterable<PutMediaRequest>) {
            seen.putMedia = currentRequestId();
            let size = 0;
            for await (const m of requests) size += m.data.length;
            return { media: { ...ref('put'), size } };
          },
          async *getMedia(req: GetMediaRequest) {
            seen.getMedia = currentRequestId();
            if (req.key === 'missing') throw notFound('media', req.key);
            // `endless` streams until the caller goes (a listen session's shape).
            for (let i = 0; req.key === 'endless' || i < 3; i++) {
              yield { total: 3, data: Buffer.from([i % 256]) };
              if (req.key === 'endless') await new Promise((r) => setTimeout(r, 20));
            }
          },
          async archiveImageUrl() {
            return { media: ref('url') };
          },
        },
      },
    ],
  });
  client = createGrpcClient(MediaServiceClient, `127.0.0.1:${server.port}`);
});

afterAll(async () => {
  client.close();
  await server.shutdown(1000);
});

describe('gRPC streams', () => {
  it('a server stream and an upload carry the request id and answer typed messages', async () => {
    const got = await runWithContext({ requestId: REQUEST_ID }, async () => {
      const bytes: number[] = [];
      for await (const m of client.streams.getMedia({ key: 'k', width: 0 })) bytes.push(...m.data);
      const put = await client.uploads.putMedia([
        { exact: false, data: Buffer.alloc(5) },
        { exact: false, data: Buffer.alloc(7) },
      ]);
      return { bytes, size: put.media!.size };
    });
    expect(got).toEqual({ bytes: [0, 1, 2], size: 12 });
    expect(seen).toEqual({ getMedia: REQUEST_ID, putMedia: REQUEST_ID });
  });

  it("a stream's failure is the service's HallmarkError", async () => {
    const read = async () => {
      for await (const _ of client.streams.getMedia({ key: 'missing', width: 0 })) void _;
    };
    await expect(read()).rejects.toMatchObject({ name: 'HallmarkError', code: 'resource_not_found' });
  });

  it('an aborted stream ends quietly; one past its deadline fails upstream_timeout', async () => {
    const abort = new AbortController();
    let n = 0;
    const open = client.streams.getMedia(
      { key: 'endless', width: 0 },
      { signal: abort.signal, deadlineMs: Infinity },
    );
    for await (const _ of open) if (++n === 2) abort.abort();
    expect(n).toBeGreaterThanOrEqual(2); // the loop ended, without an error

    const bounded = async () => {
      for await (const _ of client.streams.getMedia({ key: 'endless', width: 0 }, { deadlineMs: 200 }))
        void _;
    };
    await expect(bounded()).rejects.toMatchObject({ code: 'upstream_timeout' });
  });
});
