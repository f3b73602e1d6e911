import type { Request } from 'express';

import { unauthenticated } from '../errors/domain-error.js';

/** The authenticated subject, recorded as created_by, updated_by and deleted_by. */
export const actorOf = (req: Pick<Request, 'principal'>): string => {
  // `authenticate` runs before every route; a write without a caller must still never happen.
  if (!req.principal) throw unauthenticated('Authentication required', 'missing_credentials');
  return req.principal.subject;
};
