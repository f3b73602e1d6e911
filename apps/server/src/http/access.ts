import { AuthenticationCode } from '@sales-order/contract';
import type { Request } from 'express';

import { type KeyManager, keyManagerOf } from '../api-keys/key-manager.js';
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

/** The caller as a manager of API keys: who it is, what it holds, and the key it calls with. */
export const managerOf = (req: Pick<Request, 'access'>): KeyManager => keyManagerOf(accessOf(req));
