import { createPublicKey, type KeyObject } from 'node:crypto';

import { AuthenticationCode, isStorableText } from '@sales-order/contract';
import { errors, type JWTPayload, jwtVerify } from 'jose';
import { LRUCache } from 'lru-cache';

import { unauthenticated } from '../errors/domain-error.js';
import { type AccessContext, type LocationList, MAX_SUBJECT_LENGTH } from './access-context.js';
import type { LocationReference, ResolvedLocations } from './location-scopes.js';

/**
 * `Authorization: Bearer <JWT>`. Each configured key verifies exactly one algorithm (HS256 for
 * JWT_SECRET; RS256 or ES256 from the type of JWT_PUBLIC_KEY), so a token cannot choose how it
 * is checked: `alg: none`, and an HS256 token "signed" with the public key, are refused.
 */

export type AsymmetricAlgorithm = 'RS256' | 'ES256';
export type JwtPublicKey = { key: KeyObject; algorithm: AsymmetricAlgorithm };

export type JwtSettings = {
  /** HS256 key, at least 32 bytes. */
  secret?: Uint8Array;
  publicKey?: JwtPublicKey;
  /** Required `iss` when set. */
  issuer?: string;
  /** Required `aud` when set. */
  audience?: string;
  /** A token without a `locations` claim is refused (JWT_REQUIRE_LOCATIONS). */
  requireLocations?: boolean;
};

/** Turns a `locations` claim's codes and ids into location ids (location-scopes.ts). */
export type ResolveLocations = (entries: readonly LocationReference[]) => Promise<ResolvedLocations>;

// More entries than any ERP has depots: a longer claim is not a scope but an attack on the lookup.
const MAX_CLAIMED_LOCATIONS = 1_000;

/** Leeway for exp, nbf and iat against clock skew between the issuer and this service. */
export const CLOCK_TOLERANCE_SECONDS = 30;

const MIN_RSA_BITS = 2048;

/**
 * The public key in a PEM text and the one algorithm it verifies. Throws an Error whose message
 * completes "JWT_PUBLIC_KEY ..." when the text is not an acceptable public key.
 */
export const parsePublicKey = (pem: string): JwtPublicKey => {
  // createPublicKey would happily derive a public key from a private one; a signing key has
  // no business in this service's environment.
  if (/PRIVATE KEY/.test(pem)) throw new Error('holds a private key; give the public key (-----BEGIN PUBLIC KEY-----)');
  let key: KeyObject;
  try {
    key = createPublicKey({ key: pem, format: 'pem' });
  } catch {
    throw new Error('is not a PEM public key (-----BEGIN PUBLIC KEY-----)');
  }
  const details = key.asymmetricKeyDetails;
  if (key.asymmetricKeyType === 'rsa') {
    const bits = details?.modulusLength ?? 0;
    if (bits < MIN_RSA_BITS) throw new Error(`is an RSA key of ${bits} bits; RS256 needs at least ${MIN_RSA_BITS}`);
    return { key, algorithm: 'RS256' };
  }
  if (key.asymmetricKeyType === 'ec' && details?.namedCurve === 'prime256v1') return { key, algorithm: 'ES256' };
  throw new Error('must be an RSA public key (RS256) or an EC P-256 public key (ES256)');
};

const invalidToken = () => unauthenticated('The access token is not valid', AuthenticationCode.invalidToken);
const invalidLocations = () =>
  unauthenticated(
    "The access token's locations claim must list existing location codes or ids",
    AuthenticationCode.invalidLocations,
  );

/** `permissions` (array of strings) wins; otherwise OAuth's space-separated `scope`; else none. */
const permissionsOf = (payload: JWTPayload): string[] => {
  const { permissions, scope } = payload;
  if (permissions !== undefined) {
    if (!Array.isArray(permissions) || !permissions.every((item) => typeof item === 'string')) throw invalidToken();
    return permissions;
  }
  if (scope !== undefined) {
    if (typeof scope !== 'string') throw invalidToken();
    // RFC 6749, 3.3: scope tokens are separated by the space character (%x20) alone, so a
    // non-breaking space inside `read\u00a0*` leaves one unknown token, not `*`.
    return scope.split(' ').filter((item) => item !== '');
  }
  return [];
};

/**
 * Verified tokens kept by their exact text, so a client sending the same token on every request
 * is checked by signature once (an HMAC through WebCrypto was the largest single cost of a
 * request). Only tokens that passed every check are kept; exp and nbf are compared again at each
 * use, and an entry leaves no later than its exp. Bounded, least recently used first out.
 */
const VERIFIED_TOKENS_MAX = 10_000;
// Longer texts are verified every time: one huge token must not pin memory in the cache.
const MAX_CACHED_TOKEN_LENGTH = 8_192;

type VerifiedToken = { access: AccessContext; exp: number; nbf: number | undefined };

export type JwtVerifier = {
  /** The caller a token names; throws an `unauthenticated` DomainError for any bad token. */
  verify(token: string): Promise<AccessContext>;
};

/**
 * The token's location scope: its optional `locations` claim, an array of location codes or ids
 * (docs/authentication.md, "Location scope"). No claim is every location unless
 * JWT_REQUIRE_LOCATIONS; an empty array is no location; a code that names no location is a 401,
 * never a silently smaller scope.
 */
const scopeOf = async (
  payload: JWTPayload,
  settings: JwtSettings,
  resolveLocations: ResolveLocations,
): Promise<LocationList> => {
  const { locations } = payload;
  if (locations === undefined) {
    if (settings.requireLocations)
      throw unauthenticated(
        'The access token must carry a locations claim (JWT_REQUIRE_LOCATIONS)',
        AuthenticationCode.locationsRequired,
      );
    return null;
  }
  if (
    !Array.isArray(locations) ||
    locations.length > MAX_CLAIMED_LOCATIONS ||
    // A code must be storable text: a NUL (or a lone surrogate) cannot even be compared in SQL.
    !locations.every(
      (entry) => (typeof entry === 'string' && entry !== '' && isStorableText(entry)) || Number.isSafeInteger(entry),
    )
  )
    throw invalidLocations();
  const { ids, unknown } = await resolveLocations(locations as LocationReference[]);
  if (unknown.length > 0) throw invalidLocations();
  return ids;
};

export const createJwtVerifier = (settings: JwtSettings, resolveLocations: ResolveLocations): JwtVerifier => {
  const keys = new Map<string, Uint8Array | KeyObject>();
  if (settings.secret) keys.set('HS256', settings.secret);
  if (settings.publicKey) keys.set(settings.publicKey.algorithm, settings.publicKey.key);
  const algorithms = [...keys.keys()];
  const verified = new LRUCache<string, VerifiedToken>({ max: VERIFIED_TOKENS_MAX });

  /** The cached caller of `token` when it is still inside its exp and nbf (with jose's leeway). */
  const fromCache = (token: string): AccessContext | undefined => {
    const entry = verified.get(token);
    if (!entry) return undefined;
    const now = Math.floor(Date.now() / 1000);
    if (entry.exp <= now - CLOCK_TOLERANCE_SECONDS) {
      verified.delete(token);
      return undefined;
    }
    if (entry.nbf !== undefined && entry.nbf > now + CLOCK_TOLERANCE_SECONDS) return undefined;
    return entry.access;
  };

  const verifySignatureAndClaims = async (token: string): Promise<AccessContext> => {
    let payload: JWTPayload;
    try {
      // jose checks `alg` against `algorithms` before asking for a key, so the lookup
      // only ever sees an algorithm that has one.
      ({ payload } = await jwtVerify(token, (header) => keys.get(header.alg)!, {
        algorithms,
        issuer: settings.issuer,
        audience: settings.audience,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (error) {
      if (error instanceof errors.JWTExpired)
        throw unauthenticated('The access token has expired', AuthenticationCode.tokenExpired);
      if (error instanceof errors.JOSEError) throw invalidToken();
      throw error;
    }
    // jose checks that iat is a number but not that it is past (only with maxTokenAge): a
    // token issued in the future comes from a broken or forging issuer.
    if (payload.iat !== undefined && payload.iat > Date.now() / 1000 + CLOCK_TOLERANCE_SECONDS) throw invalidToken();
    const subject = payload.sub;
    // The subject is stored as created_by/updated_by text: it must be storable as sent.
    if (
      typeof subject !== 'string' ||
      subject === '' ||
      subject.length > MAX_SUBJECT_LENGTH ||
      !isStorableText(subject)
    ) {
      throw invalidToken();
    }
    const access: AccessContext = {
      subject,
      permissions: new Set(permissionsOf(payload)),
      method: 'jwt',
      locations: await scopeOf(payload, settings, resolveLocations),
      // requiredClaims makes exp a number.
      credential: { tokenExpiresAt: new Date(payload.exp! * 1000) },
    };
    // requiredClaims makes exp a number here; jose has checked nbf's type when present.
    if (token.length <= MAX_CACHED_TOKEN_LENGTH) {
      verified.set(token, { access, exp: payload.exp!, nbf: payload.nbf });
    }
    return access;
  };

  return {
    async verify(token) {
      if (algorithms.length === 0)
        throw unauthenticated(
          'This service is not configured to accept Bearer tokens',
          AuthenticationCode.invalidToken,
        );
      return fromCache(token) ?? verifySignatureAndClaims(token);
    },
  };
};
