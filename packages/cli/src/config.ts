// Where `hallmark login` keeps the base URL and credential: $HALLMARK_CONFIG, else
// $XDG_CONFIG_HOME/hallmark/config.json, else ~/.config/hallmark/config.json, written with
// mode 0600 (the directory 0700). HALLMARK_BASE_URL, HALLMARK_API_KEY and HALLMARK_TOKEN
// override what is saved; flags override both.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

export interface SavedConfig {
  baseUrl?: string;
  apiKey?: string;
  token?: string;
}

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HALLMARK_CONFIG) return path.resolve(env.HALLMARK_CONFIG);
  const base = env.XDG_CONFIG_HOME || path.join(homedir(), '.config');
  return path.join(base, 'hallmark', 'config.json');
}

export function readConfig(file = configPath()): SavedConfig {
  if (!existsSync(file)) return {};
  return JSON.parse(readFileSync(file, 'utf8')) as SavedConfig;
}

export function writeConfig(config: SavedConfig, file = configPath()): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 });
  chmodSync(file, 0o600); // an existing file keeps its old mode on write
}

export interface Resolved {
  baseUrl: string;
  apiKey?: string;
  token?: string;
  source: string;
}

/** Flags, then the environment, then the saved file. */
export function resolveConfig(flags: SavedConfig, env: NodeJS.ProcessEnv = process.env): Resolved {
  const saved = readConfig(configPath(env));
  const baseUrl = flags.baseUrl ?? env.HALLMARK_BASE_URL ?? saved.baseUrl ?? DEFAULT_BASE_URL;
  if (flags.apiKey || flags.token)
    return { baseUrl, apiKey: flags.apiKey, token: flags.token, source: 'flags' };
  if (env.HALLMARK_API_KEY) return { baseUrl, apiKey: env.HALLMARK_API_KEY, source: 'HALLMARK_API_KEY' };
  if (env.HALLMARK_TOKEN) return { baseUrl, token: env.HALLMARK_TOKEN, source: 'HALLMARK_TOKEN' };
  return { baseUrl, apiKey: saved.apiKey, token: saved.token, source: configPath(env) };
}
