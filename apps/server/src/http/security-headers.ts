import type { IncomingMessage, ServerResponse } from 'node:http';

import type { RequestHandler } from 'express';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * helmet's response headers, worked out once by running helmet against a recording response,
 * then set on every response in one call. With static options (no per-request CSP nonce) its
 * thirteen middleware always set the same values; running them on each request cost a chain
 * of calls per response for nothing.
 */
export const securityHeaders = (options: Readonly<HelmetOptions>): RequestHandler => {
  const headers = new Map<string, string>();
  const removed: string[] = [];
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers.set(name, String(value));
    },
    removeHeader: (name: string) => {
      removed.push(name);
    },
  };
  let done = false;
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error instanceof Error) throw error;
    if (error) throw new Error('helmet refused its options');
    done = true;
  });
  // helmet finishes synchronously for static options; anything else needs the real middleware.
  if (!done) throw new Error('helmet did not finish synchronously: its options are not static');
  return (_req, res, next) => {
    res.setHeaders(headers);
    for (const name of removed) res.removeHeader(name);
    next();
  };
};
