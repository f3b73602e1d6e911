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

/** Subjects are stored in VARCHAR(200) audit columns. */
export const MAX_SUBJECT_LENGTH = 200;

export const hasPermission = (principal: Principal, permission: Permission): boolean =>
  principal.permissions.has(Permission.all) || principal.permissions.has(permission);
