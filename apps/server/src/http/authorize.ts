import {
  AccessCode,
  AuthenticationCode,
  type Permission,
  permissionsForBody,
  requiredPermissions,
  type RouteAccess,
} from '@sales-order/contract';
import type { NextFunction, Response } from 'express';

import { type AccessContext, hasPermission } from '../auth/access-context.js';
import { type DomainError, forbidden, unauthenticated } from '../errors/domain-error.js';

/**
 * Every permission check of the API, in one place: the route's (its contract metadata), the
 * body's field values (`fieldPermissions`), and what the webhook routes ask of the caller.
 */

/** The part of a ts-rest request these checks read: the matched route, the caller and the parsed body. */
type RoutedRequest = {
  tsRestRoute: { metadata: RouteAccess };
  access?: AccessContext;
  body?: unknown;
};

/** 403 naming every permission in `needed` the caller lacks; null when it holds them all. */
const refusalFor = (access: AccessContext, needed: readonly Permission[]): DomainError | null => {
  const missing = needed.filter((permission) => !hasPermission(access, permission));
  if (missing.length === 0) return null;
  const message = `This needs the permission${missing.length > 1 ? 's' : ''} ${missing.join(' and ')}`;
  return forbidden(message, AccessCode.missingPermission);
};

const checkWith =
  (needed: (req: RoutedRequest) => readonly Permission[]) =>
  (req: RoutedRequest, _res: Response, next: NextFunction): void => {
    const { access } = req;
    if (!access) {
      next(unauthenticated('Authentication required', AuthenticationCode.missingCredentials));
      return;
    }
    next(refusalFor(access, needed(req)) ?? undefined);
  };

/**
 * The permissions a route declares in its contract metadata (its own, and read where it shows
 * the order), checked once the route is matched and before its body is parsed or validated: a
 * caller without them gets 403 whatever it sent, whether the order exists or not.
 */
export const requirePermission = checkWith((req) => requiredPermissions(req.tsRestRoute.metadata));

/**
 * The permissions the body's field values ask for (`status: confirmed` is a confirm,
 * `acknowledge_warnings: true` overrides licence warnings), checked once the JSON is parsed and
 * before the contract validates it, so that what a field asks for is refused whatever else the
 * body holds.
 */
export const requireFieldPermissions = checkWith((req) => permissionsForBody(req.tsRestRoute.metadata, req.body));
