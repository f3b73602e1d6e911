import { parse as parseCookies } from 'cookie';
import type { RequestHandler } from 'express';

import type { AccessContext } from '../auth/access-context.js';
import type { Authenticator } from '../auth/authenticator.js';

declare global {
  // Express's own extension point for request properties (declaration merging).
  namespace Express {
    interface Request {
      /** The authenticated caller, set by `authenticate` on every API path but the public ones. */
      access?: AccessContext;
    }
  }
}

/** API paths anyone may read: the OpenAPI document and its viewer. */
const PUBLIC_PATH = /^\/(openapi\.json|docs(\/.*)?)$/;
const READ_METHODS = new Set(['GET', 'HEAD']);

/**
 * Establishes who is calling before anything else looks at the request (route matching, body
 * parsing, validation), so an anonymous caller learns nothing but 401: not whether a route or an
 * order exists, nor whether its body would have been accepted.
 */
export const authenticate =
  (authenticator: Authenticator, sessionCookieName: string): RequestHandler =>
  async (req, _res, next) => {
    if (READ_METHODS.has(req.method) && PUBLIC_PATH.test(req.path)) {
      next();
      return;
    }
    try {
      const { authorization, cookie } = req.headers;
      // An Authorization header decides alone (authenticator.ts): the cookie is read only without one.
      // The cookie value is hashed exactly as the browser sent it: no URI decoding.
      const sessionToken =
        authorization === undefined && cookie !== undefined
          ? parseCookies(cookie, { decode: (value) => value })[sessionCookieName] || undefined
          : undefined;
      req.access = await authenticator.authenticate({ authorization, sessionToken });
      next();
    } catch (error) {
      next(error);
    }
  };
