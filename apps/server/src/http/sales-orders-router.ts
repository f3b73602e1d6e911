import {
  BulkCreatedSalesOrdersSchema,
  CreatedSalesOrderSchema,
  type EntityTagCondition,
  type SalesOrder,
  SalesOrderSchema,
  salesOrdersContract,
} from '@sales-order/contract';
import { initServer } from '@ts-rest/express';
import type { Request, RequestHandler, Response } from 'express';
import { z } from 'zod';

import type { IdempotencyGuard } from '../idempotency/idempotency-service.js';
import { type Metrics, noMetrics } from '../observability/metrics.js';
import { locationsOfCreated } from '../orders/bulk-create-orders.js';
import { entityTagOf, entityTagOfRendered } from '../orders/order-preconditions.js';
import type { TransitionRequest } from '../orders/order-transition.js';
import type { Services } from '../services.js';
import { accessOf } from './access.js';
import { expectedOf, stillMatches } from './conditional-requests.js';
import { success, successRendered } from './envelope.js';
import { BadRequestError } from './error-handler.js';
import type { ordersPerMinutePerClient } from './rate-limit.js';

const s = initServer();

/** The strong ETag of an order as it reads now. */
const setEntityTag = (res: Response, order: SalesOrder) => res.setHeader('ETag', `"${entityTagOf(order)}"`);

/** How many orders a bulk create may hold, and the count of its orders per client. */
export interface BulkLimits {
  /** BULK_MAX_ORDERS */
  maxOrders: number;
  /** BULK_ORDERS_PER_MINUTE per client address. */
  ordersPerMinute: Pick<ReturnType<typeof ordersPerMinutePerClient>, 'take'>;
}

/**
 * More orders than BULK_MAX_ORDERS: 400, as the document's `maxItems` says (the contract itself
 * takes up to the ceiling any setting may have), before each order is validated.
 */
const refuseOrdersBeyond =
  (max: number): RequestHandler =>
  (req, _res, next) => {
    const orders = (req.body as { orders?: unknown } | undefined)?.orders;
    if (!Array.isArray(orders) || orders.length <= max) {
      next();
      return;
    }
    const message = `at most ${max} orders in one call (BULK_MAX_ORDERS); this one has ${orders.length}`;
    next(new BadRequestError('Invalid input data', [{ path: 'orders', message, code: z.ZodIssueCode.too_big }]));
  };

/**
 * The contract's routes bound to the use cases. Handlers only translate: the contract has
 * already validated params, query and body, and the services hold every rule. Keys keep the
 * contract's order, which is also Express's matching order (static paths before /:id).
 */
export const createSalesOrdersRouter = (
  { orders, idempotency, licences, dropdowns, totals }: Services,
  { requireIfMatch, bulk }: { requireIfMatch: boolean; bulk: BulkLimits },
  metrics: Pick<Metrics, 'idempotentReplays' | 'transitions'> = noMetrics,
) => {
  /** Counts what the answer says: a replay, or a transition done now. */
  const counted = (replayed: boolean, transition?: string) => {
    if (replayed) metrics.idempotentReplays.inc();
    else if (transition) metrics.transitions.inc({ transition });
  };

  /**
   * A transition's request: the caller, what it expects (If-Match) and, with an
   * Idempotency-Key, the guard its transaction claims. The key's fingerprint covers the route
   * and the order as well as the body, so one key cannot stand for two different calls.
   */
  const transition = async (
    { req, headers, params }: { req: Pick<Request, 'access'>; headers: TransitionHeaders; params: { id: number } },
    name: string,
    body: unknown,
    perform: (request: TransitionRequest) => Promise<SalesOrder>,
  ) => {
    const access = accessOf(req);
    const expected = expectedOf(headers['if-match'], requireIfMatch);
    const key = headers['idempotency-key'];
    if (key === undefined) return { result: await perform({ access, expected }), replayed: false };
    return idempotency.run(
      access,
      { key, request: { transition: name, sales_order_id: params.id, body } },
      SalesOrderSchema,
      (guard: IdempotencyGuard<SalesOrder>) => perform({ access, expected, idempotency: guard }),
      (order) => [order.location_id],
    );
  };

  return s.router(salesOrdersContract, {
    getMaxNumber: async ({ query, req }) => ({
      status: 200,
      body: success(await orders.maxNumber(accessOf(req), query)),
    }),

    validateLicence: async ({ body, req }) => ({
      status: 200,
      body: success(await licences.validate(accessOf(req), body)),
    }),

    // ts-rest handlers return promises; calculate-totals has no I/O to await.
    // eslint-disable-next-line @typescript-eslint/require-await
    calculateTotals: async ({ body }) => ({ status: 200, body: success(totals.calculate(body)) }),

    getDropdownOptions: async ({ params, query, req }) => ({
      status: 200,
      body: success(await dropdowns.options(accessOf(req), params.type, query)),
    }),

    listSalesOrders: async ({ query, req }) => ({
      status: 200,
      body: successRendered(await orders.list(accessOf(req), query)),
    }),

    createSalesOrder: async ({ body, headers, req, res }) => {
      const access = accessOf(req);
      const key = headers['idempotency-key'];
      const { result: created, replayed } =
        key === undefined
          ? { result: await orders.create(access, body), replayed: false }
          : await idempotency.run(
              access,
              { key, request: body },
              CreatedSalesOrderSchema,
              (guard) => orders.create(access, body, guard),
              () => [body.location_id],
            );
      counted(replayed);
      if (replayed) res.setHeader('Idempotent-Replayed', 'true');
      res.setHeader('Location', `${req.baseUrl}/sales-orders/${created.sales_order_id}`);
      return { status: 201, body: success(created, 'Sales order created successfully') };
    },

    bulkCreateSalesOrders: {
      middleware: [refuseOrdersBeyond(bulk.maxOrders)],
      handler: async ({ body, headers, req, res }) => {
        const access = accessOf(req);
        await bulk.ordersPerMinute.take(req, body.orders.length);
        const key = headers['idempotency-key'];
        const { result, replayed } =
          key === undefined
            ? { result: await orders.bulkCreate(access, body), replayed: false }
            : await idempotency.run(
                access,
                // The route is part of the fingerprint: one key cannot stand for a single and a bulk create.
                { key, request: { bulk: body } },
                BulkCreatedSalesOrdersSchema,
                (guard) => orders.bulkCreate(access, body, guard),
                (answer) => locationsOfCreated(body, answer),
              );
        counted(replayed);
        if (replayed) res.setHeader('Idempotent-Replayed', 'true');
        return result.error_policy === 'reject_failed_rows'
          ? { status: 200, body: success(result, `${result.created} created, ${result.failed} failed`) }
          : { status: 201, body: success(result, `${result.created} sales orders created`) };
      },
    },

    // The precondition is evaluated here, not by Express's req.fresh, which ignores
    // If-None-Match whenever the request says Cache-Control: no-cache (as fetch clients do).
    // The order's text, as its statement rendered it, goes out unparsed; its tag is a digest of it.
    getSalesOrder: async ({ params, headers, req, res }) => {
      const order = await orders.get(accessOf(req), params.id);
      const entityTag = entityTagOfRendered(order);
      res.setHeader('ETag', `"${entityTag}"`);
      if (stillMatches(headers['if-none-match'], entityTag)) return { status: 304, body: undefined };
      return { status: 200, body: successRendered(order.json) };
    },

    getSalesOrderHistory: async ({ params, query, req }) => ({
      status: 200,
      body: success(await orders.history(accessOf(req), params.id, { limit: query.limit, after: query.cursor })),
    }),

    updateSalesOrder: async ({ params, body, headers, req, res }) => {
      const expected = expectedOf(headers['if-match'], requireIfMatch);
      const { updated, order } = await orders.update(accessOf(req), params.id, body, expected);
      setEntityTag(res, order);
      return { status: 200, body: success(updated, 'Sales order updated successfully') };
    },

    deleteSalesOrder: async ({ params, headers, req }) => {
      const expected = expectedOf(headers['if-match'], requireIfMatch);
      return {
        status: 200,
        body: success(await orders.remove(accessOf(req), params.id, expected), 'Sales order deleted successfully'),
      };
    },

    confirmSalesOrder: async (call) => {
      const { result, replayed } = await transition(call, 'confirm', call.body, (request) =>
        orders.confirm(call.params.id, call.body, request),
      );
      counted(replayed, 'confirm');
      return answerTransition(call.res, result, replayed, 200, 'Sales order confirmed');
    },

    cancelSalesOrder: async (call) => {
      const { result, replayed } = await transition(call, 'cancel', call.body, (request) =>
        orders.cancel(call.params.id, call.body, request),
      );
      counted(replayed, 'cancel');
      return answerTransition(call.res, result, replayed, 200, 'Sales order cancelled');
    },

    closeSalesOrder: async (call) => {
      const { result, replayed } = await transition(call, 'close', null, (request) =>
        orders.close(call.params.id, request),
      );
      counted(replayed, 'close');
      return answerTransition(call.res, result, replayed, 200, 'Sales order closed');
    },

    amendSalesOrder: async (call) => {
      const { result, replayed } = await transition(call, 'amend', null, (request) =>
        orders.amend(call.params.id, request),
      );
      counted(replayed, 'amend');
      call.res.setHeader('Location', `${call.req.baseUrl}/sales-orders/${result.sales_order_id}`);
      return answerTransition(call.res, result, replayed, 201, 'Sales order amended into a new draft');
    },
  });
};

type TransitionHeaders = { 'if-match'?: EntityTagCondition; 'idempotency-key'?: string };

/** A transition's answer: the order as it now reads, with its ETag (and Idempotent-Replayed for a replay). */
const answerTransition = <Status extends 200 | 201>(
  res: Response,
  order: SalesOrder,
  replayed: boolean,
  status: Status,
  message: string,
) => {
  if (replayed) res.setHeader('Idempotent-Replayed', 'true');
  setEntityTag(res, order);
  return { status, body: success(order, message) };
};
