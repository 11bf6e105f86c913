// Outbound guard for calls to addresses a customer chose (webhooks, image fetches): a URL
// whose host is, or resolves to, a private, loopback, link-local (cloud metadata), CGNAT,
// unique-local or other non-public address is refused unless the operator listed it in
// HALLMARK_OUTBOUND_ALLOW_HOSTS. Checked when the URL is accepted AND when connecting:
// the guarded agent resolves the host itself, checks every address and connects to the
// address it checked, so DNS rebinding between the two checks gains nothing.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { HallmarkError } from './errors.js';

type Family = 'ipv4' | 'ipv6';
interface Rule {
  list: BlockList;
  family: Family;
  reason: string;
}

function rule(prefix: string, bits: number, family: Family, reason: string): Rule {
  const list = new BlockList();
  list.addSubnet(prefix, bits, family);
  return { list, family, reason };
}

/**
 * Non-public ranges (IANA special-purpose registries). Each applies to its own family only
 * (BlockList would also match v4 rules against v4-mapped v6 and the reverse); every
 * v4-mapped v6 address is refused as such.
 */
const RULES: Rule[] = [
  rule('0.0.0.0', 8, 'ipv4', '"this network" address'),
  rule('10.0.0.0', 8, 'ipv4', 'private address'),
  rule('100.64.0.0', 10, 'ipv4', 'carrier-grade NAT address'),
  rule('127.0.0.0', 8, 'ipv4', 'loopback address'),
  rule('169.254.0.0', 16, 'ipv4', 'link-local address (cloud metadata)'),
  rule('172.16.0.0', 12, 'ipv4', 'private address'),
  rule('192.0.0.0', 24, 'ipv4', 'IETF protocol address'),
  rule('192.0.2.0', 24, 'ipv4', 'documentation address'),
  rule('192.88.99.0', 24, 'ipv4', '6to4 relay address'),
  rule('192.168.0.0', 16, 'ipv4', 'private address'),
  rule('198.18.0.0', 15, 'ipv4', 'benchmarking address'),
  rule('198.51.100.0', 24, 'ipv4', 'documentation address'),
  rule('203.0.113.0', 24, 'ipv4', 'documentation address'),
  rule('224.0.0.0', 4, 'ipv4', 'multicast address'),
  rule('240.0.0.0', 4, 'ipv4', 'reserved address'),
  rule('::', 128, 'ipv6', 'unspecified address'),
  rule('::1', 128, 'ipv6', 'loopback address'),
  rule('::ffff:0:0', 96, 'ipv6', 'IPv4-mapped address'),
  rule('::', 96, 'ipv6', 'IPv4-compatible address'),
  rule('64:ff9b:1::', 48, 'ipv6', 'local-use NAT64 address'),
  rule('100::', 64, 'ipv6', 'discard address'),
  rule('2001::', 32, 'ipv6', 'Teredo address'),
  rule('2001:db8::', 32, 'ipv6', 'documentation address'),
  rule('2002::', 16, 'ipv6', '6to4 address'),
  rule('fc00::', 7, 'ipv6', 'unique-local address'),
  rule('fe80::', 10, 'ipv6', 'link-local address'),
  rule('fec0::', 10, 'ipv6', 'site-local address'),
  rule('ff00::', 8, 'ipv6', 'multicast address'),
];
const NAT64 = rule('64:ff9b::', 96, 'ipv6', 'NAT64');

const familyOf = (ip: string): Family => (isIP(ip) === 6 ? 'ipv6' : 'ipv4');

/** The IPv4 address in the low 32 bits of an IPv6 address. */
function embeddedV4(ipv6: string): string {
  const host = new URL(`http://[${ipv6}]/`).hostname.slice(1, -1); // normalised, hex only
  const [head = '', tail = ''] = host.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t].map((g) =>
    parseInt(g, 16),
  );
  const [a = 0, b = 0] = groups.slice(6);
  return [a >> 8, a & 255, b >> 8, b & 255].join('.');
}

/** Why `ip` is not a public address, or null when it is. Pure. */
export function nonPublicReason(ip: string): string | null {
  const family = familyOf(ip);
  for (const r of RULES) if (r.family === family && r.list.check(ip, family)) return r.reason;
  if (family === 'ipv6' && NAT64.list.check(ip, 'ipv6')) {
    const inner = nonPublicReason(embeddedV4(ip));
    return inner ? `NAT64 ${inner}` : null;
  }
  return null;
}

export interface GuardDecision {
  allowed: boolean;
  reason?: string;
}

/**
 * The operator's exemptions (HALLMARK_OUTBOUND_ALLOW_HOSTS): comma-separated host names
 * (exact, case-insensitive), IP addresses and CIDR blocks.
 */
export class OutboundGuard {
  private readonly hosts = new Set<string>();
  private readonly addresses = new BlockList();

  constructor(allowList = '') {
    for (const raw of allowList.split(',')) {
      const entry = raw
        .trim()
        .toLowerCase()
        .replace(/^\[|\]$/g, '');
      if (!entry) continue;
      const [addr = '', bits] = entry.split('/');
      if (isIP(addr) && bits !== undefined) this.addresses.addSubnet(addr, Number(bits), familyOf(addr));
      else if (isIP(addr)) this.addresses.addAddress(addr, familyOf(addr));
      else this.hosts.add(entry);
    }
  }

  /** Whether a connection to `ip` (resolved from `host`) may be made. Pure. */
  check(host: string, ip: string): GuardDecision {
    if (this.hosts.has(host.toLowerCase()) || this.addresses.check(ip, familyOf(ip)))
      return { allowed: true };
    const reason = nonPublicReason(ip);
    return reason ? { allowed: false, reason: `${ip} is a ${reason}` } : { allowed: true };
  }

  /** Resolves `host` (every address) and checks each; any refused address refuses the host. */
  async resolve(host: string): Promise<LookupAddress[]> {
    const bare = stripBrackets(host);
    const addresses: LookupAddress[] = isIP(bare)
      ? [{ address: bare, family: isIP(bare) }]
      : await new Promise((resolve, reject) =>
          dnsLookup(bare, { all: true, verbatim: true }, (err, list) => (err ? reject(err) : resolve(list))),
        );
    for (const { address } of addresses) {
      const d = this.check(bare, address);
      if (!d.allowed) throw new OutboundRefusedError(bare, d.reason!);
    }
    return addresses;
  }

  /** A `lookup` for net/tls.connect that only ever yields addresses this guard allowed. */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.resolve(hostname).then(
      (list) => {
        if (options.all) callback(null, list);
        else {
          const wanted = options.family === 6 || options.family === 4 ? options.family : 0;
          const pick = list.find((a) => !wanted || a.family === wanted) ?? list[0]!;
          callback(null, pick.address, pick.family);
        }
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };

  /**
   * Checks a URL a customer submitted: https only (unless `allowHttp`), and a host that
   * resolves only to allowed addresses. Throws `parameter_invalid` naming `param`.
   */
  async assertUrl(raw: string, opts: { param: string; allowHttp?: boolean }): Promise<URL> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new HallmarkError('parameter_invalid', {
        param: opts.param,
        message: `Invalid ${opts.param}: not a URL.`,
      });
    }
    const schemes = opts.allowHttp ? ['https:', 'http:'] : ['https:'];
    if (!schemes.includes(url.protocol))
      throw new HallmarkError('parameter_invalid', {
        param: opts.param,
        message: `Invalid ${opts.param}: must be an HTTPS URL.`,
      });
    if (url.username || url.password)
      throw new HallmarkError('parameter_invalid', {
        param: opts.param,
        message: `Invalid ${opts.param}: credentials in the URL are not allowed.`,
      });
    try {
      await this.resolve(url.hostname);
    } catch (err) {
      if (err instanceof OutboundRefusedError)
        throw new HallmarkError('parameter_invalid', {
          param: opts.param,
          message: `Invalid ${opts.param}: ${url.hostname} resolves to a non-public address (${err.reason}).`,
        });
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTFOUND' || code === 'ENODATA')
        throw new HallmarkError('parameter_invalid', {
          param: opts.param,
          message: `Invalid ${opts.param}: the host ${url.hostname} does not resolve.`,
        });
      throw new HallmarkError('service_unavailable', {
        message: `Could not resolve ${url.hostname}; retry later.`,
        cause: err,
      });
    }
    return url;
  }
}

export class OutboundRefusedError extends Error {
  readonly code = 'E_OUTBOUND_REFUSED';
  constructor(
    readonly host: string,
    readonly reason: string,
  ) {
    super(`outbound connection to ${host} refused: ${reason}`);
    this.name = 'OutboundRefusedError';
  }
}

const stripBrackets = (host: string) => host.replace(/^\[|\]$/g, '');

export interface GuardedAgentOptions {
  /** Extra TLS options (tests pass `ca`); certificates are always verified. */
  tls?: { ca?: string | string[] };
  connectTimeoutMs?: number;
  connections?: number;
}

/**
 * An undici Agent whose every connection goes through the guard: host names are resolved
 * by the guard's lookup (the checked address is the one dialled); IP literals, which
 * net.connect never looks up, are checked before dialling.
 */
export function createGuardedAgent(guard: OutboundGuard, opts: GuardedAgentOptions = {}): Agent {
  const connector = buildConnector({
    ...(opts.tls?.ca ? { ca: opts.tls.ca } : {}),
    rejectUnauthorized: true,
    lookup: guard.lookup,
    timeout: opts.connectTimeoutMs ?? 10_000,
  });
  return new Agent({
    connections: opts.connections ?? 64,
    connect: (options, callback) => {
      const host = stripBrackets(options.hostname);
      if (isIP(host)) {
        const d = guard.check(host, host);
        if (!d.allowed) return callback(new OutboundRefusedError(host, d.reason!), null);
      }
      connector(options, callback);
    },
  });
}
