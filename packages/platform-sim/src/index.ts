// A local stand-in for the e-commerce platform, speaking its protocol for every call
// Hallmark makes (OAuth install, Admin GraphQL + REST fallback, signed webhooks) and able
// to fail on purpose. Point HALLMARK_PLATFORM_ADMIN_URL at `adminUrlTemplate`.
import type http from 'node:http';
import { createSimServer } from './server.js';
import { Simulator } from './sim.js';

export { oauthMessage, signOAuthQuery, signWebhook } from './signing.js';
export { ACCESS_TOKEN_HEADER } from './server.js';
export type { FaultMode, FaultTarget } from './faults.js';
export type { Fulfillment, Order, Product, SentWebhook } from './state.js';
export { Simulator } from './sim.js';

export interface PlatformSimOptions {
  apiKey: string;
  apiSecret: string;
  apiVersion?: string;
  port?: number;
  host?: string;
}

export interface PlatformSim {
  sim: Simulator;
  /** http://host:port */
  url: string;
  /** HALLMARK_PLATFORM_ADMIN_URL for this simulator: `<url>/{shop}/admin`. */
  adminUrlTemplate: string;
  /** Drops every open connection (a platform-side network failure). */
  dropConnections(): void;
  close(): Promise<void>;
}

export async function startPlatformSim(opts: PlatformSimOptions): Promise<PlatformSim> {
  const sim = new Simulator({ apiKey: opts.apiKey, apiSecret: opts.apiSecret }, opts.apiVersion ?? '2024-10');
  const server = createSimServer(sim);
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const url = `http://${host}:${(server.address() as { port: number }).port}`;
  return {
    sim,
    url,
    adminUrlTemplate: `${url}/{shop}/admin`,
    dropConnections: () => (server as http.Server & { dropAll(): void }).dropAll(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as http.Server & { dropAll(): void }).dropAll();
      }),
  };
}
