// A local S3-compatible server (s3rver, a Node implementation of the S3 REST API) for tests of
// the S3 backend: the real protocol through @aws-sdk/client-s3, no mock.
import { createRequire } from 'node:module';

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
type S3rverCtor = new (opts: Record<string, unknown>) => S3rverInstance;
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverCtor;

export interface LocalS3 {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  close(): Promise<void>;
}

export async function startLocalS3(directory: string, bucket = 'hallmark-media'): Promise<LocalS3> {
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    close: () => server.close(),
  };
}
