// Starting the simulator on a port: the HTTP server around a Simulator.
import type http from 'node:http';
import { createSimServer } from './server.js';
import { Simulator } from './sim.js';

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
