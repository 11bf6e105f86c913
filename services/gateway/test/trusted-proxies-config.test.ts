// HALLMARK_TRUSTED_PROXIES (docs/security.md › Proxies and client identity): empty by default
// (no X-Forwarded-For believed); addresses and CIDR ranges taken; anything else stops the
// gateway at start, naming the entry, rather than trusting a range nobody meant.
import { describe, expect, it } from '@jest/globals';
import { loadGatewayConfig } from '../src/config.js';

const proxies = (value?: string) =>
  loadGatewayConfig(value === undefined ? {} : { HALLMARK_TRUSTED_PROXIES: value }).HALLMARK_TRUSTED_PROXIES;

describe('HALLMARK_TRUSTED_PROXIES', () => {
  it('trusts no proxy unless configured', () => {
    expect(proxies()).toEqual([]);
    expect(proxies('')).toEqual([]);
  });

  it('takes comma-separated addresses and CIDR ranges, IPv4 and IPv6', () => {
    expect(proxies(' 10.244.0.0/16, 127.0.0.1 ,fd00::/8,::1')).toEqual([
      '10.244.0.0/16',
      '127.0.0.1',
      'fd00::/8',
      '::1',
    ]);
  });

  it.each(['loopback', '10.0.0.0/33', '10.0.0.0/8/1', 'fd00::/129', '10.0.0.0/255.0.0.0', '*'])(
    'refuses to start on %s, naming it',
    (entry) => {
      expect(() => proxies(`10.0.0.1,${entry}`)).toThrow(
        new RegExp(
          `HALLMARK_TRUSTED_PROXIES: not an IP address or CIDR range: '${entry.replace(/[.*/]/g, '\\$&')}'`,
        ),
      );
    },
  );
});
