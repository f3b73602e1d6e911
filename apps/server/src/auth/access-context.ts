import { Permission } from '@sales-order/contract';

/** How a caller proved who it is. */
export type AuthMethod = 'jwt' | 'api_key' | 'session';

/**
 * The locations a credential names: their ids, or `null` for a credential given no list (every
 * location, as before location scope). An empty list is a caller that sees nothing, never all.
 * Data only: what a statement may see is the `Scope` that `scopeOf(access)` makes of it
 * (auth/scope.ts), which is what stores take.
 */
export type LocationList = readonly number[] | null;

/**
 * What authentication produces and every use case receives: who the caller is (recorded as
 * created_by and the like), how it proved it, what it may do and where. One value, made once per
 * request by the authenticator (and kept in the credential caches), so that no use case reads a
 * bare actor name and no rule has to be threaded through by hand.
 */
export type AccessContext = {
  subject: string;
  method: AuthMethod;
  permissions: ReadonlySet<string>;
  locations: LocationList;
  /**
   * An API key's rotation family: the prefix of the first key it descends from by rotations
   * (its own when it was not made by one); the space of its Idempotency-Keys
   * (idempotency/key-space.ts). Absent for other methods.
   */
  keyFamily?: string;
  /**
   * How the credential's current state is looked up again by work that outlives the request (an
   * import's chunks, imports/import-starter.ts): a session by its token's SHA-256, a JWT (which cannot
   * be looked up) by its exp. An API key is looked up by its subject's prefix.
   */
  credential?: { sessionDigest: string } | { tokenExpiresAt: Date };
};

/** The permissions a caller can be given: each route's, and `*` for all of them. */
export const KNOWN_PERMISSIONS: readonly string[] = Object.values(Permission);

/** The prefix of an API key's subject (`api_key:<prefix>`): no other method's subject may start with it. */
export const API_KEY_SUBJECT_PREFIX = 'api_key:';

/**
 * Who the caller is across authentication methods: the method and the subject together
 * (`api_key:<prefix>`, `jwt:<sub>`, `session:<user>`), so that no credential of one kind takes
 * the identity of another (JWT `alice` and host session `alice` are two callers). What
 * Idempotency-Keys are scoped by.
 */
export const identityOf = ({ method, subject }: Pick<AccessContext, 'method' | 'subject'>): string =>
  method === 'api_key' ? subject : `${method}:${subject}`;

/** Subjects are stored in VARCHAR(200) audit columns. */
export const MAX_SUBJECT_LENGTH = 200;

export const hasPermission = (access: Pick<AccessContext, 'permissions'>, permission: Permission): boolean =>
  access.permissions.has(Permission.all) || access.permissions.has(permission);

/**
 * The access of the service's own work on a caller's behalf where no request is in flight (the
 * CLI on the server's machine, the demo data): every location and permission.
 */
export const systemAccess = (subject: string): AccessContext => ({
  subject,
  method: 'api_key',
  permissions: new Set([Permission.all]),
  locations: null,
});
