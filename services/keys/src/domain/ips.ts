// IP allowlists of keys: single IPv4/IPv6 addresses or CIDR ranges, validated with
// node:net (never a regex) before they are stored, so the gateway's per-request check
// (services/gateway/src/auth/ip.ts) only ever sees well-formed entries. An empty list
// allows every address.
import { isIP } from 'node:net';

export const MAX_ALLOWED_IPS = 100;

type Family = 'ipv4' | 'ipv6';

interface ParsedEntry {
  address: string;
  family: Family;
  prefix: number | null;
}

/** Parses one allowlist entry (`203.0.113.7`, `10.0.0.0/8`, `2001:db8::/32`); null if invalid. */
export function parseIpEntry(entry: string): ParsedEntry | null {
  if (typeof entry !== 'string' || entry.length > 64) return null;
  const [address = '', prefixText, extra] = entry.trim().split('/');
  if (extra !== undefined) return null;
  const version = isIP(address);
  if (version === 0) return null;
  const family: Family = version === 4 ? 'ipv4' : 'ipv6';
  if (prefixText === undefined) return { address, family, prefix: null };
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  if (prefix > (version === 4 ? 32 : 128)) return null;
  return { address, family, prefix };
}

/** Canonical text of a valid entry (trimmed); null when the entry is invalid. */
export function normaliseIpEntry(entry: string): string | null {
  const parsed = parseIpEntry(entry);
  if (!parsed) return null;
  return parsed.prefix === null ? parsed.address : `${parsed.address}/${parsed.prefix}`;
}
