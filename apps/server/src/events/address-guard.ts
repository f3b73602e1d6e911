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

/**
 * Why `address` may not receive webhooks (the name of its range, as ipaddr.js names it:
 * loopback, private, linkLocal, uniqueLocal, carrierGradeNat, reserved, unspecified, multicast,
 * broadcast, rfc6052 (NAT64), 6to4, teredo, ...), or null for a public unicast address.
 * IPv4-mapped and IPv4-compatible IPv6 addresses are judged as the IPv4 address they carry.
 */
export const nonPublicRange = (address: string): string | null => {
  if (!ipaddr.isValid(address)) return 'invalid';
  const parsed = ipaddr.process(address);
  if (METADATA_ADDRESSES.has(parsed.toString())) return 'metadata';
  const range = parsed.range();
  return range === 'unicast' ? null : range;
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
