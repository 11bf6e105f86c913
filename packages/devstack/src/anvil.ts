// Local EVM chain: anvil from the `@foundry-rs/anvil` npm package. With a dataDir the chain
// state is loaded from and dumped to <dataDir>/anvil/state.json, so deployed contracts and
// minted tokens survive a restart of the dev stack (as they would on a real chain).
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { anvilBinary } from './binaries.js';
import { spawnProcess } from './process.js';

export const ANVIL_CHAIN_ID = 31337;

export interface AnvilOptions {
  port?: number;
  /** Keep chain state here across restarts; without it the chain starts empty every time. */
  dataDir?: string;
  /** Seconds between periodic state dumps, so a crash loses at most this much (default 5). */
  stateIntervalSec?: number;
  logFile?: string;
  /** Mine a block every this many seconds instead of one per transaction (anvil `--block-time`). */
  blockTimeSec?: number;
  /** Block gas limit (anvil `--gas-limit`; its default is 30,000,000). */
  gasLimit?: number;
}

export interface AnvilHandle {
  rpcUrl: string;
  chainId: number;
  /** The anvil process (e.g. for a bench that tallies CPU per process). */
  pid: number;
  stop(): Promise<void>;
}

/** One JSON-RPC call; throws on transport errors and JSON-RPC errors alike. */
export async function jsonRpc<T = unknown>(
  rpcUrl: string,
  method: string,
  params: unknown[] = [],
): Promise<T> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { result?: T; error?: { message?: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message ?? 'JSON-RPC error'}`);
  return body.result as T;
}

export async function startAnvil(opts: AnvilOptions = {}): Promise<AnvilHandle> {
  const port = opts.port ?? 8545;
  const rpcUrl = `http://127.0.0.1:${port}`;
  const args = ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(ANVIL_CHAIN_ID)];
  if (opts.blockTimeSec) args.push('--block-time', String(opts.blockTimeSec));
  if (opts.gasLimit) args.push('--gas-limit', String(opts.gasLimit));
  let pidFile: string | undefined;
  if (opts.dataDir) {
    const dir = resolve(opts.dataDir, 'anvil');
    mkdirSync(dir, { recursive: true });
    // --state = --load-state (if the file exists) + --dump-state on exit; the interval dump
    // covers exits that are not graceful.
    args.push('--state', join(dir, 'state.json'), '--state-interval', String(opts.stateIntervalSec ?? 5));
    pidFile = join(opts.dataDir, 'anvil.pid');
  }
  const proc = await spawnProcess({
    name: 'anvil',
    cmd: anvilBinary(),
    args,
    readyCheck: async () => Number(await jsonRpc<string>(rpcUrl, 'eth_chainId')) === ANVIL_CHAIN_ID,
    readyTimeoutMs: 30_000,
    ports: [port],
    ...(pidFile ? { pidFile } : {}),
    ...(opts.logFile ? { logFile: opts.logFile } : {}),
  });
  return { rpcUrl, chainId: ANVIL_CHAIN_ID, pid: proc.pid, stop: () => proc.stop() };
}
