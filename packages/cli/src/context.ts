// What every command gets: the client built from flags/env/config, and the two outputs —
// tables and short lines for people, `--json` for scripts (exactly the API's objects).
import { Hallmark, HallmarkError } from '@hallmark/client';
import Table from 'cli-table3';
import type { Command } from 'commander';
import { resolveConfig } from './config.js';

export interface GlobalOptions {
  json?: boolean;
  baseUrl?: string;
  apiKey?: string;
  token?: string;
}

export class Ctx {
  constructor(readonly opts: GlobalOptions) {}

  static of(cmd: Command): Ctx {
    return new Ctx(cmd.optsWithGlobals<GlobalOptions>());
  }

  get json(): boolean {
    return Boolean(this.opts.json);
  }

  client(): Hallmark {
    const c = resolveConfig({ baseUrl: this.opts.baseUrl, apiKey: this.opts.apiKey, token: this.opts.token });
    return new Hallmark({
      baseUrl: c.baseUrl,
      ...(c.apiKey ? { apiKey: c.apiKey } : c.token ? { token: c.token } : {}),
      onRetry: (r) => {
        if (!this.json && r.status === 429) {
          process.stderr.write(`Rate limited: retrying in ${Math.ceil(r.delayMs / 1000)} s…\n`);
        }
      },
    });
  }

  /** `--json`: the object as the API answered it; otherwise `human()` prints. */
  print(data: unknown, human: () => void): void {
    if (this.json) process.stdout.write(JSON.stringify(data, null, 2) + '\n');
    else human();
  }
}

export function table(head: string[], rows: unknown[][]): void {
  const t = new Table({ head, style: { head: process.stdout.isTTY ? ['cyan'] : [], border: [] } });
  for (const r of rows) t.push(r.map((c) => (c === undefined || c === null ? '' : String(c))));
  console.log(t.toString());
}

/** Key/value lines for one object. */
export function details(obj: Record<string, unknown>): void {
  const width = Math.max(...Object.keys(obj).map((k) => k.length));
  for (const [k, v] of Object.entries(obj)) {
    const shown = v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v ?? '');
    console.log(`${k.padEnd(width)}  ${shown}`);
  }
}

/** An API key as people may see it: its mode prefix and last four characters (`pk_live_…WXYZ`). */
export function maskKey(key: string): string {
  const prefix = /^pk_(live|test|restricted)_/.exec(key)?.[0] ?? '';
  return `${prefix}…${key.length > prefix.length + 8 ? key.slice(-4) : ''}`;
}

/** Exit status by error type: 2 usage/validation, 3 auth, 4 not found, 5 rate limit, 1 other. */
export function exitCodeOf(err: HallmarkError): number {
  switch (err.type) {
    case 'invalid_request_error':
    case 'validation_error':
      return 2;
    case 'authentication_error':
    case 'permission_error':
      return 3;
    case 'resource_error':
      return 4;
    case 'rate_limit_error':
      return 5;
    default:
      return 1;
  }
}

/** A wait in words and when it ends: "45 s (at 14:05:12 UTC)", "59 min (at 14:05 UTC)". */
export function waitOf(seconds: number, now = Date.now()): string {
  const at = new Date(now + seconds * 1000).toISOString();
  if (seconds < 60) return `${Math.ceil(seconds)} s (at ${at.slice(11, 19)} UTC)`;
  const minutes = Math.ceil(seconds / 60);
  const span =
    minutes < 60
      ? `${minutes} min`
      : `${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
  return `${span} (at ${at.slice(11, 16)} UTC)`;
}

/** Prints a failure for people (code and request id) or as the API's error object. */
export function reportError(err: unknown, json: boolean): number {
  if (err instanceof HallmarkError) {
    if (json) {
      process.stdout.write(
        JSON.stringify(err.body ?? { error: { code: err.code, message: err.message } }, null, 2) + '\n',
      );
    }
    // A rate limit says how long to wait (a bulk retry's budget is an hour, not "later").
    const message =
      err.type === 'rate_limit_error' && err.retry_after !== undefined
        ? `Too many requests: retry in ${waitOf(err.retry_after)}.`
        : err.message;
    process.stderr.write(
      `Error: ${message}\n  code: ${err.code}${err.param ? `  param: ${err.param}` : ''}  status: ${err.status}` +
        `${err.request_id ? `\n  request id: ${err.request_id}` : ''}\n`,
    );
    return exitCodeOf(err);
  }
  process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
  return 1;
}
