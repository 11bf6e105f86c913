// The HTTP/2 endpoint Restate calls the order workflow on, registered with Restate's admin
// API once it listens (in the background: the service answers while Restate starts).
import { registerRestateDeployment, withRestateIdentity, type Logger } from '@hallmark/kit';
import * as restate from '@restatedev/restate-sdk';
import http2 from 'node:http2';

export interface EndpointOptions {
  port: number;
  host: string;
  /** The URL Restate reaches the endpoint at (default http://127.0.0.1:<port>). */
  url?: string;
  /** Register with this admin API at start; null when a deploy job registers it. */
  adminUrl: string | null;
  log: Logger;
  onStop(): void;
}

export function restateEndpoint(service: restate.WorkflowDefinition<string, any>, opts: EndpointOptions) {
  const server = http2.createServer(withRestateIdentity(restate.endpoint().bind(service)).http2Handler());
  return {
    async start() {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(opts.port, opts.host, () => resolve());
      });
      const uri = opts.url ?? `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      opts.log.info({ uri }, 'restate endpoint listening');
      if (opts.adminUrl)
        void registerRestateDeployment(opts.adminUrl, uri, { timeoutMs: Infinity }).then(
          () => opts.log.info({ uri }, 'restate endpoint registered'),
          (err: unknown) => opts.log.error({ err }, 'restate endpoint registration refused'),
        );
    },
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      opts.onStop();
    },
  };
}
