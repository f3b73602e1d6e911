import { type JWTPayload, SignJWT } from 'jose';

/** The HS256 secret every test server accepts unless a test configures JWT_* itself. */
export const TEST_JWT_SECRET = 'test-only-secret-for-hs256-tokens-0123456789';
/** The subject of the harness's default credential (what created_by records). */
export const TEST_SUBJECT = 'test-harness';

export const secretKey = (secret: string) => new TextEncoder().encode(secret);

type SignOptions = {
  payload?: JWTPayload;
  /** `null` leaves `sub` out. */
  subject?: string | null;
  alg?: 'HS256' | 'RS256' | 'ES256';
  key?: Parameters<SignJWT['sign']>[0];
  /** A jose time span ('5m', '-1h') or an epoch second; `null` leaves `exp` out. */
  expiresIn?: string | number | null;
  notBefore?: string | number;
  /** Epoch second of `iat`; now by default. */
  issuedAt?: number;
  issuer?: string;
  audience?: string;
};

/** A signed JWT; by default HS256 with TEST_JWT_SECRET, subject TEST_SUBJECT, 5 minutes. */
export const signJwt = async ({
  payload = {},
  subject = TEST_SUBJECT,
  alg = 'HS256',
  key = secretKey(TEST_JWT_SECRET),
  expiresIn = '5m',
  notBefore,
  issuedAt,
  issuer,
  audience,
}: SignOptions = {}): Promise<string> => {
  const jwt = new SignJWT(payload).setProtectedHeader({ alg }).setIssuedAt(issuedAt);
  if (subject !== null) jwt.setSubject(subject);
  if (expiresIn !== null) jwt.setExpirationTime(expiresIn);
  if (notBefore !== undefined) jwt.setNotBefore(notBefore);
  if (issuer !== undefined) jwt.setIssuer(issuer);
  if (audience !== undefined) jwt.setAudience(audience);
  return jwt.sign(key);
};
