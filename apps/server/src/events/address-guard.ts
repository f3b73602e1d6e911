import type { LookupAddress, LookupAllOptions, LookupOneOptions } from 'node:dns';
import { lookup } from 'node:dns';
import { isIP } from 'node:net';

import ipaddr from 'ipaddr.js';

/**
 * Server-side request forgery guard for webhook URLs: an endpoint may only be an address of the
 * public internet, unless WEBHOOK_ALLOW_PRIVATE_NETWORKS says otherwise. Checked when an endpoint
 * is registered or its URL changed, and again when each delivery connects (DNS can change between
 * the two): the connection is made to the very address checked, so a name that resolves to a
 * public address at the check and to a private one at the connect cannot slip through.
 */

/** Every address a host name resolves to (dns.lookup, as the HTTP client resolves it). */
export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) =>
  new Promise((resolve, reject) => {
    lookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error) reject(error);
      else resolve(addresses.map(({ address }) => address));
    });
  });

/**
 * Public addresses that are cloud metadata services all the same (Azure's wire server; the
 * others sit in link-local, carrier-grade NAT or unique-local ranges, refused anyway).
 */
const METADATA_ADDRESSES = new Set(['168.63.129.16']);

const ipv4Of = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/** 64:ff9b::/96, NAT64's well-known prefix: the IPv4 address is the last 32 bits. */
const isWellKnownNat64 = (parts: number[]) =>
  parts[0] === 0x64 && parts[1] === 0xff9b && parts.slice(2, 6).every((part) => part === 0);

/**
 * The IPv4 addresses an IPv6 address carries, by the forms that carry one (the bit positions of
 * their RFCs), or none. A connection to such an address can end at the IPv4 address: through
 * the host's own stack (mapped, compatible, translated), a NAT64 gateway, a 6to4 relay or a
 * Teredo server and client.
 */
const carriedIpv4 = (address: ipaddr.IPv6): ipaddr.IPv4[] => {
  const { parts } = address;
  const last = () => ipv4Of(parts[6]!, parts[7]!);
  if (address.isIPv4MappedAddress()) return [address.toIPv4Address()];
  // ::ffff:0:a.b.c.d (RFC 6145, IPv4-translated) and 64:ff9b::a.b.c.d (RFC 6052, NAT64).
  if (address.range() === 'rfc6145' || isWellKnownNat64(parts)) return [last()];
  // 2002:AABB:CCDD::/48 (RFC 3056, 6to4): the relay's IPv4 address in bits 16-47.
  if (address.range() === '6to4') return [ipv4Of(parts[1]!, parts[2]!)];
  // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC (RFC 4380, Teredo): the server's address, and the
  // client's with every bit inverted.
  if (address.range() === 'teredo')
    return [ipv4Of(parts[2]!, parts[3]!), ipv4Of(parts[6]! ^ 0xffff, parts[7]! ^ 0xffff)];
  // ::a.b.c.d (IPv4-compatible, deprecated): 96 zero bits, except :: and ::1 themselves.
  if (parts.slice(0, 6).every((part) => part === 0) && (parts[6] !== 0 || parts[7]! > 1)) return [last()];
  return [];
};

/** The range of one address as the guard names it: metadata, ipaddr.js's range, or null for public unicast. */
const rangeOf = (address: ipaddr.IPv4 | ipaddr.IPv6): string | null => {
  if (METADATA_ADDRESSES.has(address.toString())) return 'metadata';
  const range = address.range();
  return range === 'unicast' ? null : range;
};

/**
 * Why `address` may not receive webhooks (the name of its range, as ipaddr.js names it:
 * loopback, private, linkLocal, uniqueLocal, carrierGradeNat, reserved, unspecified, multicast,
 * broadcast, ...), or null for a public unicast address. Every IPv6 form that carries an IPv4
 * address (mapped, compatible, translated, NAT64 64:ff9b::/96, 6to4, Teredo) is judged as the
 * IPv4 address it carries (both of Teredo's): `[::127.0.0.1]` (`::7f00:1`) is loopback,
 * `64:ff9b::808:808` is public. Other NAT64 prefixes (64:ff9b:1::/48), whose IPv4 address may
 * sit anywhere, stay refused as `rfc6052`.
 */
export const nonPublicRange = (address: string): string | null => {
  if (!ipaddr.isValid(address)) return 'invalid';
  const parsed = ipaddr.process(address);
  const carried = parsed.kind() === 'ipv6' ? carriedIpv4(parsed as ipaddr.IPv6) : [];
  if (carried.length === 0) return rangeOf(parsed);
  for (const ipv4 of carried) {
    const range = rangeOf(ipv4);
    if (range !== null) return range;
  }
  return null;
};

export class AddressRefusedError extends Error {
  readonly code = 'EADDRREFUSED';
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(
      `${host === address ? address : `${host} resolves to ${address}, which`} is a ${range} address: refused ` +
        '(only public addresses receive webhooks unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)',
    );
    this.name = 'AddressRefusedError';
  }
}

/** The host of a URL without IPv6 brackets. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

export type HostCheck =
  | { ok: true; addresses: string[] }
  | { ok: false; reason: 'refused'; error: AddressRefusedError }
  | { ok: false; reason: 'unresolvable'; message: string };

/**
 * Checks where a URL's host leads: an IP literal as it is, a name through `resolve`; refused
 * when any of its addresses is not public (a name with one private address among public ones
 * could be connected to it).
 */
export const checkHost = async (url: URL, resolve: Resolver, allowPrivateNetworks: boolean): Promise<HostCheck> => {
  const host = hostOf(url);
  let addresses: string[];
  if (isIP(host) !== 0) addresses = [host];
  else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      return { ok: false, reason: 'unresolvable', message: `${host} does not resolve (${(error as Error).message})` };
    }
    if (addresses.length === 0) return { ok: false, reason: 'unresolvable', message: `${host} has no address` };
  }
  if (!allowPrivateNetworks) {
    for (const address of addresses) {
      const range = nonPublicRange(address);
      if (range !== null) return { ok: false, reason: 'refused', error: new AddressRefusedError(host, address, range) };
    }
  }
  return { ok: true, addresses };
};

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for node:http agents: resolves through `resolve` and hands the connection only
 * addresses that pass, so the address connected to is the address checked.
 */
export const guardedLookup =
  (resolve: Resolver, allowPrivateNetworks: boolean) =>
  (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void => {
    checkHost(new URL(`http://${isIP(hostname) === 6 ? `[${hostname}]` : hostname}`), resolve, allowPrivateNetworks)
      .then((check) => {
        if (!check.ok) {
          const error: NodeJS.ErrnoException =
            check.reason === 'refused' ? check.error : Object.assign(new Error(check.message), { code: 'ENOTFOUND' });
          callback(error, []);
          return;
        }
        const found = check.addresses.map((address) => ({ address, family: isIP(address) }));
        if ((options as LookupAllOptions).all) callback(null, found);
        else callback(null, found[0]!.address, found[0]!.family);
      })
      .catch((error: Error) => callback(error, []));
  };
