// The bulk-job workflow's HTTP/2 endpoint for Restate, as a worker: it listens, then
// registers itself with Restate's admin API in the background (the service answers reads
// and job creation meanwhile; runs submitted before registration are re-sent by the
// submitter).
import { registerRestateDeployment, withRestateIdentity, type Logger } from '@hallmark/kit';
import * as restate from '@restatedev/restate-sdk';
import http2 from 'node:http2';
import { bulkJobObject } from './bulk-job.js';
import type { JobSteps } from './steps.js';

export interface EndpointOptions {
  host: string;
  port: number;
  /** The URI Restate reaches the endpoint at (default http://127.0.0.1:<port>). */
  publicUri?: string;
  /** Register with Restate's admin API at start. */
  register: boolean;
  adminUrl: string;
  pipelineDepth: number;
  log: Logger;
  /** Called after the server closed (clients and agents to close). */
  onStop: () => void;
}

export function restateEndpoint(steps: JobSteps, o: EndpointOptions) {
  const endpoint = withRestateIdentity(
    restate.endpoint().bind(bulkJobObject(steps, { pipelineDepth: o.pipelineDepth })),
  );
  const server = http2.createServer(endpoint.http2Handler());
  return {
    async start() {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(o.port, o.host, () => resolve());
      });
      const port = (server.address() as { port: number }).port;
      const uri = o.publicUri ?? `http://127.0.0.1:${port}`;
      o.log.info({ uri }, 'restate endpoint listening');
      if (o.register) {
        void registerRestateDeployment(o.adminUrl, uri, { timeoutMs: Infinity }).then(
          () => o.log.info({ uri }, 'restate endpoint registered'),
          (err: unknown) => o.log.error({ err }, 'restate endpoint registration refused'),
        );
      }
    },
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      o.onStop();
    },
  };
}
