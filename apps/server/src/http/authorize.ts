import { AccessCode, AuthenticationCode, type Permission } from '@sales-order/contract';
import type { NextFunction, Response } from 'express';

import { hasPermission, type Principal } from '../auth/principal.js';
import { forbidden, unauthenticated } from '../errors/domain-error.js';

/** The part of a ts-rest request this check reads: the matched route and the caller. */
type RoutedRequest = {
  tsRestRoute: { metadata: { readonly permission: Permission } };
  principal?: Principal;
};

/**
 * The permission a route declares in its contract metadata, checked once the route is matched
 * and before its body is parsed or validated: a caller without it gets 403 whatever it sent.
 */
export const requirePermission = (req: RoutedRequest, _res: Response, next: NextFunction): void => {
  const { principal } = req;
  const { permission } = req.tsRestRoute.metadata;
  if (!principal) {
    next(unauthenticated('Authentication required', AuthenticationCode.missingCredentials));
    return;
  }
  if (!hasPermission(principal, permission)) {
    next(forbidden(`This needs the permission ${permission}`, AccessCode.missingPermission));
    return;
  }
  next();
};
