import { ApiKeyCode, type ErrorDetail, Permission } from '@sales-order/contract';

import { type AccessContext, API_KEY_SUBJECT_PREFIX } from '../auth/access-context.js';
import { DomainError } from '../errors/domain-error.js';

/** Who manages keys, and the bounds of what it can hand out: never more than it holds itself. */
export interface KeyManager {
  /** Recorded as created_by, revoked_by and the history's actor. */
  actor: string;
  permissions: ReadonlySet<string>;
  /** The prefix of the key this request is authenticated with, when it is one (confirm_self). */
  ownKeyPrefix: string | null;
}

/** The caller of an HTTP request as a key manager. */
export const keyManagerOf = (access: AccessContext): KeyManager => ({
  actor: access.subject,
  permissions: access.permissions,
  ownKeyPrefix:
    access.method === 'api_key' && access.subject.startsWith(API_KEY_SUBJECT_PREFIX)
      ? access.subject.slice(API_KEY_SUBJECT_PREFIX.length)
      : null,
});

/**
 * Whoever runs the service's own commands on its machine (`pnpm api-key` as `cli:<user>`, the
 * demo seed): the bootstrap of a fresh install, which holds every permission, as whoever can run
 * them can read the database anyway.
 */
export const operator = (actor: string): KeyManager => ({
  actor,
  permissions: new Set([Permission.all]),
  ownKeyPrefix: null,
});

/**
 * No escalation: every permission of the key must be held by the manager (`*` only by a holder
 * of `*`). 403 naming each permission it lacks.
 */
export const checkGrant = (manager: KeyManager, permissions: readonly string[]): void => {
  if (manager.permissions.has(Permission.all)) return;
  const details: ErrorDetail[] = permissions.flatMap((permission, index) =>
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
  if (details.length > 0) {
    throw new DomainError('forbidden', 'A key cannot get more than its maker holds', details);
  }
};
