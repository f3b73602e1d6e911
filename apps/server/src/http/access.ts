import { AuthenticationCode } from '@sales-order/contract';
import type { Request } from 'express';

import { type AccessContext, identityOf } from '../auth/access-context.js';
import { unauthenticated } from '../errors/domain-error.js';

/** The caller's access context, which every use case receives. */
export const accessOf = (req: Pick<Request, 'access'>): AccessContext => {
  // `authenticate` runs before every route; a use case without a caller must still never run.
  if (!req.access) throw unauthenticated('Authentication required', AuthenticationCode.missingCredentials);
  return req.access;
};

/** The caller's identity across authentication methods (auth/access-context.ts), which Idempotency-Keys are scoped by. */
export const identityOfCaller = (req: Pick<Request, 'access'>): string => identityOf(accessOf(req));
