import { SchemaIssueCode } from '@sales-order/contract';
import type { NextFunction, Response } from 'express';
import { z } from 'zod';

import { BadRequestError } from './error-handler.js';

/** The part of a ts-rest request this check reads: the matched route's query schema, if any. */
type RoutedRequest = { query: object; tsRestRoute: { method: string; query?: unknown } };

/** The keys an object schema (under refinements, transforms and defaults) accepts. */
const keysOf = (schema: unknown): ReadonlySet<string> => {
  if (schema instanceof z.ZodObject) return new Set(Object.keys(schema.shape as object));
  if (schema instanceof z.ZodEffects) return keysOf(schema.innerType());
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) return keysOf(schema.unwrap());
  if (schema instanceof z.ZodDefault) return keysOf(schema.removeDefault());
  return new Set();
};

const keysOfRoute = new WeakMap<object, ReadonlySet<string>>();

/**
 * A query parameter the matched route does not declare is a 400 naming it, on every route (one
 * without a query schema takes none): a misspelt filter (`custmer_id`) must never be ignored
 * and widen what comes back. Runs after the permission check, like the contract's validation.
 */
export const refuseUnknownQueryParameters = (req: RoutedRequest, _res: Response, next: NextFunction): void => {
  const route = req.tsRestRoute;
  let known = keysOfRoute.get(route);
  if (!known) {
    known = keysOf(route.query);
    keysOfRoute.set(route, known);
  }
  const unknown = Object.keys(req.query).filter((name) => !known.has(name));
  if (unknown.length === 0) {
    next();
    return;
  }
  next(
    new BadRequestError(
      'Invalid input data',
      unknown.map((name) => ({
        path: name,
        message:
          known.size === 0
            ? `${name} is not a query parameter of this route, which takes none`
            : `${name} is not a query parameter of this route, which takes ${[...known].join(', ')}`,
        code: SchemaIssueCode.unknownQueryParameter,
      })),
    ),
  );
};
