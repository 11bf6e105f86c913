// A service's Restate endpoint (HTTP/2) as a worker: it listens, serves its handlers under
// its release's path, and (when asked) registers itself with Restate's admin API in the
// background, so the service answers while Restate starts (work sent meanwhile is re-sent by
// the service's keep-started worker).
//
// Why the release is in the path: Restate pins each invocation to the deployment (the URI)
// it started on. A process of another release reached at an old URI (a restart on the same
// port) refuses it with 404 rather than replaying that journal against other code; Restate
// retries it until the old release answers there again.
import * as restate from '@restatedev/restate-sdk';
import http2 from 'node:http2';
import type { Logger } from '../log.js';
import { registerRestateDeployment } from './admin.js';
import { withRestateIdentity } from './identity.js';

export type RestateDefinition = Parameters<restate.RestateEndpoint['bind']>[0];

export interface RestateEndpointOptions {
  host: string;
  port: number;
  /** The URL Restate reaches this process at, without the release (default http://127.0.0.1:<port>). */
  url?: string | undefined;
  release: string;
  /** Register with this admin API at start; null when a deploy job registers it. */
  adminUrl: string | null;
  /** Replace a deployment registered at the same URI (the dev stack only). */
  force?: boolean;
  log: Logger;
  /** Called after the server closed (clients to close). */
  onStop?: () => void;
}

/** How long a stop lets Restate's streams in flight finish before it ends their connections. */
const STOP_GRACE_MS = 2000;

/** The URI a release's endpoint is registered at. */
export const releaseUri = (base: string, release: string) => `${base.replace(/\/+$/, '')}/${release}`;

export function restateEndpoint(definitions: RestateDefinition[], o: RestateEndpointOptions) {
  let endpoint = restate.endpoint();
  for (const d of definitions) endpoint = endpoint.bind(d);
  const handler = withRestateIdentity(endpoint).http2Handler();
  const prefix = `/${o.release}/`;
  const server = http2.createServer((req, res) => {
    if (req.url.startsWith(prefix)) return handler(req, res);
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end(`this endpoint serves release ${o.release} under ${prefix}`);
  });
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  return {
    /** The URI it registers (known once it listens). */
    uri: '',
    async start() {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(o.port, o.host, () => resolve());
      });
      const port = (server.address() as { port: number }).port;
      this.uri = releaseUri(o.url ?? `http://127.0.0.1:${port}`, o.release);
      const uri = this.uri;
      o.log.info({ uri }, 'restate endpoint listening');
      if (o.adminUrl)
        void registerRestateDeployment(o.adminUrl, uri, {
          timeoutMs: Infinity,
          force: o.force ?? false,
        }).then(
          () => o.log.info({ uri }, 'restate endpoint registered'),
          (err: unknown) => o.log.error({ err }, 'restate endpoint registration refused'),
        );
    },
    /**
     * Stops listening and ends Restate's connections. Restate keeps its HTTP/2 sessions open, and
     * `server.close()` alone waits for them to end: the process hung on every SIGTERM until it
     * was killed. Each session gets a GOAWAY (streams in flight finish); one still open after
     * the grace is destroyed, and Restate retries its invocation elsewhere or later.
     */
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of sessions) session.close();
      const timer = setTimeout(() => {
        for (const session of sessions) session.destroy();
      }, STOP_GRACE_MS);
      await closed;
      clearTimeout(timer);
      o.onStop?.();
    },
  };
}
