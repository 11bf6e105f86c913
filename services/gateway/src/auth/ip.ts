// Per-key IP allowlists: exact addresses or CIDR ranges, IPv4 and IPv6.
import { BlockList, isIP } from 'node:net';

const cache = new Map<string, BlockList>();

function blockListOf(entries: readonly string[]): BlockList {
  const id = entries.join(',');
  let list = cache.get(id);
  if (!list) {
    list = new BlockList();
    for (const entry of entries) {
      const [addr, bits] = entry.split('/');
      const family = isIP(addr ?? '') === 6 ? 'ipv6' : 'ipv4';
      if (bits !== undefined) list.addSubnet(addr!, Number(bits), family);
      else list.addAddress(addr!, family);
    }
    if (cache.size > 10_000) cache.clear();
    cache.set(id, list);
  }
  return list;
}

export function ipAllowed(ip: string, allowed: readonly string[]): boolean {
  if (allowed.length === 0) return true;
  const normalised = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
  const family = isIP(normalised) === 6 ? 'ipv6' : 'ipv4';
  return blockListOf(allowed).check(normalised, family);
}
