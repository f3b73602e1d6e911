import { ApiKeyCode, type ErrorDetail, Permission } from '@sales-order/contract';

import { type AccessContext, API_KEY_SUBJECT_PREFIX } from '../auth/access-context.js';
import { reaches, type Scope, scopeOf, systemScope } from '../auth/scope.js';
import { DomainError } from '../errors/domain-error.js';

/** Who manages keys, and the bounds of what it can hand out: never more than it holds itself. */
export interface KeyManager {
  /** Recorded as created_by, revoked_by and the history's actor. */
  actor: string;
  permissions: ReadonlySet<string>;
  /**
   * The manager's own locations. It hands out only keys inside them, and sees and changes only
   * keys whose locations lie inside them.
   */
  scope: Scope;
  /** The prefix of the key this request is authenticated with, when it is one (confirm_self). */
  ownKeyPrefix: string | null;
}

/** The caller of an HTTP request as a key manager. */
export const keyManagerOf = (access: AccessContext): KeyManager => ({
  actor: access.subject,
  permissions: access.permissions,
  scope: scopeOf(access),
  ownKeyPrefix:
    access.method === 'api_key' && access.subject.startsWith(API_KEY_SUBJECT_PREFIX)
      ? access.subject.slice(API_KEY_SUBJECT_PREFIX.length)
      : null,
});

/**
 * Whoever runs the service's own commands on its machine (`pnpm api-key` as `cli:<user>`, the
 * demo seed): the bootstrap of a fresh install, which holds every permission and location, as
 * whoever can run them can read the database anyway.
 */
export const operator = (actor: string): KeyManager => ({
  actor,
  permissions: new Set([Permission.all]),
  scope: systemScope,
  ownKeyPrefix: null,
});

/** One entry of a key's `locations` as the request named it, and the location id it names (undefined: none). */
export interface LocationEntry {
  index: number;
  entry: string | number;
  id: number | undefined;
}

/** What a key would be given, as the grant check reads it. */
export interface Grant {
  permissions: readonly string[];
  /** The key's locations entry by entry; null: every location. */
  locations: readonly LocationEntry[] | null;
}

/**
 * No escalation: every permission of the key must be held by the manager (`*` only by a holder
 * of `*`), and the key's locations must lie inside the manager's (a manager limited to
 * locations cannot make a key for every location). 403 naming each permission and location it
 * lacks, `permission_not_held` and `location_not_held`. For a manager limited to locations an
 * entry that names no location is just one it does not hold: it learns nothing of the
 * locations outside its own.
 */
export const checkGrant = (manager: KeyManager, grant: Grant): void => {
  const details: ErrorDetail[] = manager.permissions.has(Permission.all)
    ? []
    : grant.permissions.flatMap((permission, index) =>
        manager.permissions.has(permission)
          ? []
          : [
              {
                path: `permissions.${index}`,
                message: `you do not hold "${permission}" yourself, so you cannot give it to a key`,
                code: ApiKeyCode.permissionNotHeld,
              },
            ],
      );
  const limited = manager.scope.locations !== 'every';
  if (limited && grant.locations === null) {
    details.push({
      path: 'locations',
      message: "you are limited to locations yourself: name the key's locations, each one of yours",
      code: ApiKeyCode.locationNotHeld,
    });
  }
  if (limited && grant.locations !== null) {
    for (const { index, entry, id } of grant.locations) {
      if (id !== undefined && reaches(manager.scope, id)) continue;
      details.push({
        path: `locations.${index}`,
        message: `${JSON.stringify(entry)} is not one of your locations, so you cannot give it to a key`,
        code: ApiKeyCode.locationNotHeld,
      });
    }
  }
  if (details.length > 0) {
    throw new DomainError('forbidden', 'A key cannot get more than its maker holds', details);
  }
};
