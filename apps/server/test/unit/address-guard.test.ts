import { describe, expect, it } from 'vitest';

import { checkHost, guardedLookup, nonPublicRange, type Resolver } from '../../src/events/address-guard.js';

/**
 * The SSRF guard's address classification, with a resolver the test controls: no name is
 * looked up and no packet leaves this process.
 */

/** Resolves names from a table; any other name does not resolve. */
const resolverOf =
  (table: Record<string, string[]>): Resolver =>
  async (hostname) => {
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses;
  };

describe('nonPublicRange: which addresses may receive webhooks', () => {
  it.each([
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.0.1', 'private'],
    ['192.168.255.255', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['169.254.0.1', 'linkLocal'],
    // Cloud metadata services: link-local (AWS, GCP, Azure IMDS), carrier-grade NAT (Alibaba),
    // unique-local (AWS over IPv6), Azure's wire server (a public address, listed by name).
    ['169.254.169.254', 'linkLocal'],
    ['100.100.100.200', 'carrierGradeNat'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['168.63.129.16', 'metadata'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['192.0.0.192', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['224.0.0.251', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fdff:ffff::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    // IPv4 inside IPv6: judged as the IPv4 address it carries.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::ffff:7f00:1', 'loopback'],
    ['::127.0.0.1', 'loopback'],
    // As a URL writes [::127.0.0.1] (once accepted).
    ['::7f00:1', 'loopback'],
    ['::a00:1', 'private'],
    ['::ffff:0:7f00:1', 'loopback'],
    // Prefixes that embed or tunnel to IPv4 addresses: judged as the IPv4 address they carry.
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['2002:a00:1::', 'private'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:a9fe:a9fe::', 'linkLocal'],
    // Teredo: server 65.54.227.120, client 127.0.0.1 (bits inverted); server 0.0.0.0.
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'],
    ['2001::1', 'unspecified'],
    // A NAT64 prefix other than the well-known one: where the IPv4 address sits is unknown.
    ['64:ff9b:1::808:808', 'rfc6052'],
    ['2001:db8::1', 'reserved'],
    ['not an address', 'invalid'],
  ])('%s is %s: refused', (address, range) => {
    expect(nonPublicRange(address)).toBe(range);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '172.15.255.255',
    '192.169.0.1',
    '100.128.0.1',
    '2606:4700::1111',
    '::ffff:8.8.4.4',
    // IPv4 carried in IPv6, public: judged as that IPv4 address.
    '::808:808',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '2001:0:808:808:8000:63bf:f7f7:f7fb',
  ])('%s is public: accepted', (address) => {
    expect(nonPublicRange(address)).toBeNull();
  });
});

describe('checkHost: a URL at registration', () => {
  const resolve = resolverOf({
    'hooks.example.com': ['93.184.216.34', '2606:2800:220:1::1'],
    'intranet.example.com': ['10.20.30.40'],
    // A name with one private address among public ones: a connection could go to it.
    'mixed.example.com': ['93.184.216.34', '192.168.1.5'],
    'metadata.example.com': ['169.254.169.254'],
    'mapped.example.com': ['::ffff:127.0.0.1'],
    'empty.example.com': [],
  });

  it('accepts a name whose every address is public, and a public IP literal', async () => {
    expect(await checkHost(new URL('https://hooks.example.com/in'), resolve, false)).toEqual({
      ok: true,
      addresses: ['93.184.216.34', '2606:2800:220:1::1'],
    });
    expect(await checkHost(new URL('https://93.184.216.34/in'), resolve, false)).toMatchObject({ ok: true });
  });

  it.each([
    ['https://intranet.example.com/in', '10.20.30.40', 'private'],
    ['https://mixed.example.com/in', '192.168.1.5', 'private'],
    ['https://metadata.example.com/in', '169.254.169.254', 'linkLocal'],
    ['https://mapped.example.com/in', '::ffff:127.0.0.1', 'loopback'],
    ['https://127.0.0.1:8443/in', '127.0.0.1', 'loopback'],
    ['https://[::1]/in', '::1', 'loopback'],
    ['https://[::ffff:10.0.0.1]/in', '::ffff:a00:1', 'private'],
    // The URL parser reads the other spellings of an IPv4 address as that address.
    ['https://2130706433/in', '127.0.0.1', 'loopback'],
    ['https://0x7f.1/in', '127.0.0.1', 'loopback'],
    ['https://10.1/in', '10.0.0.1', 'private'],
  ])('refuses %s (%s, %s)', async (url, address, range) => {
    const check = await checkHost(new URL(url), resolve, false);
    expect(check.ok).toBe(false);
    if (check.ok || check.reason !== 'refused') throw new Error('expected a refusal');
    expect({ address: check.error.address, range: check.error.range }).toEqual({ address, range });
    expect(check.error.message).toContain('WEBHOOK_ALLOW_PRIVATE_NETWORKS');
  });

  it('accepts them all with allowPrivateNetworks, as a test or an intranet deployment sets it', async () => {
    for (const url of ['https://intranet.example.com/', 'https://127.0.0.1/', 'https://mixed.example.com/']) {
      expect((await checkHost(new URL(url), resolve, true)).ok, url).toBe(true);
    }
  });

  it('says when a name does not resolve, or resolves to nothing', async () => {
    expect(await checkHost(new URL('https://nowhere.example.com/'), resolve, false)).toMatchObject({
      ok: false,
      reason: 'unresolvable',
    });
    expect(await checkHost(new URL('https://empty.example.com/'), resolve, false)).toMatchObject({
      ok: false,
      reason: 'unresolvable',
    });
  });
});

describe('guardedLookup: the connection-time check of every delivery', () => {
  /** What node:net gets from the lookup, as a promise. */
  const lookUp = (resolve: Resolver, hostname: string, all: boolean) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family?: number }>((done) => {
      guardedLookup(resolve, false)(hostname, { all }, (error, address, family) => done({ error, address, family }));
    });

  it('hands the connection the resolved public addresses, in either form node:net asks for', async () => {
    const resolve = resolverOf({ 'hooks.example.com': ['93.184.216.34', '2606:2800:220:1::1'] });
    expect(await lookUp(resolve, 'hooks.example.com', true)).toEqual({
      error: null,
      address: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1::1', family: 6 },
      ],
      family: undefined,
    });
    expect(await lookUp(resolve, 'hooks.example.com', false)).toEqual({
      error: null,
      address: '93.184.216.34',
      family: 4,
    });
  });

  it('refuses a name that now resolves to a private address (DNS changed since registration)', async () => {
    let answer = ['93.184.216.34'];
    const resolve: Resolver = async () => answer;
    expect((await lookUp(resolve, 'rebinding.example.com', false)).error).toBeNull();
    answer = ['10.0.0.7'];
    const refused = await lookUp(resolve, 'rebinding.example.com', false);
    expect(refused.error?.code).toBe('EADDRREFUSED');
    expect(refused.error?.message).toBe(
      'rebinding.example.com resolves to 10.0.0.7, which is a private address: refused (only public addresses receive ' +
        'webhooks unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)',
    );
  });
});
