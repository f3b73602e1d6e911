import { Permission } from '@sales-order/contract';

/** How a caller proved who it is. */
export type AuthMethod = 'jwt' | 'api_key' | 'session';

/** An authenticated caller: who it is (recorded as created_by and the like) and what it may do. */
export type Principal = {
  subject: string;
  permissions: ReadonlySet<string>;
  method: AuthMethod;
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
export const identityOf = ({ method, subject }: Pick<Principal, 'method' | 'subject'>): string =>
  method === 'api_key' ? subject : `${method}:${subject}`;

/** Subjects are stored in VARCHAR(200) audit columns. */
export const MAX_SUBJECT_LENGTH = 200;

export const hasPermission = (principal: Principal, permission: Permission): boolean =>
  principal.permissions.has(Permission.all) || principal.permissions.has(permission);
