import { AccessCode, AuthenticationCode, requiredPermissions, type RouteAccess } from '@sales-order/contract';
import type { NextFunction, Response } from 'express';

import { type AccessContext, hasPermission } from '../auth/access-context.js';
import { forbidden, unauthenticated } from '../errors/domain-error.js';

/** The part of a ts-rest request this check reads: the matched route and the caller. */
type RoutedRequest = {
  tsRestRoute: { metadata: RouteAccess };
  access?: AccessContext;
};

/**
 * The permissions a route declares in its contract metadata (its own, and read where it shows
 * the order), checked once the route is matched and before its body is parsed or validated: a
 * caller without them gets 403 whatever it sent, whether the order exists or not.
 */
export const requirePermission = (req: RoutedRequest, _res: Response, next: NextFunction): void => {
  const { access } = req;
  if (!access) {
    next(unauthenticated('Authentication required', AuthenticationCode.missingCredentials));
    return;
  }
  const missing = requiredPermissions(req.tsRestRoute.metadata).filter(
    (permission) => !hasPermission(access, permission),
  );
  if (missing.length > 0) {
    const message = `This needs the permission${missing.length > 1 ? 's' : ''} ${missing.join(' and ')}`;
    next(forbidden(message, AccessCode.missingPermission));
    return;
  }
  next();
};
