import { AuthenticationCode } from '@sales-order/contract';
import type { Request } from 'express';

import { type KeyManager, keyManagerOf } from '../api-keys/key-manager.js';
import { identityOf } from '../auth/principal.js';
import { unauthenticated } from '../errors/domain-error.js';

/** The authenticated subject, recorded as created_by, updated_by and deleted_by. */
export const actorOf = (req: Pick<Request, 'principal'>): string => {
  // `authenticate` runs before every route; a write without a caller must still never happen.
  if (!req.principal) throw unauthenticated('Authentication required', AuthenticationCode.missingCredentials);
  return req.principal.subject;
};

/** The caller's identity across authentication methods (principal.ts), which Idempotency-Keys are scoped by. */
export const identityOfCaller = (req: Pick<Request, 'principal'>): string => {
  if (!req.principal) throw unauthenticated('Authentication required', AuthenticationCode.missingCredentials);
  return identityOf(req.principal);
};

/** The caller as a manager of API keys: who it is, what it holds, and the key it calls with. */
export const managerOf = (req: Pick<Request, 'principal'>): KeyManager => {
  if (!req.principal) throw unauthenticated('Authentication required', AuthenticationCode.missingCredentials);
  return keyManagerOf(req.principal);
};
