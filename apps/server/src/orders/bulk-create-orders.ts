import {
  type BulkCreatedSalesOrders,
  type BulkCreateSalesOrdersBody,
  type BulkOrderError,
  type BulkOrderResult,
  type CreatedSalesOrder,
  CreatedSalesOrderSchema,
  ErrorCode,
  type ErrorDetail,
  MAX_ERROR_DETAILS,
} from '@sales-order/contract';

import { type AccessContext, identityOf } from '../auth/access-context.js';
import { DomainError, unprocessable } from '../errors/domain-error.js';
import type { IdempotencyGuard, IdempotencyService } from '../idempotency/idempotency-service.js';
import { createOrder } from './create-order.js';
import type { OrderDeps } from './order-use-case.js';

/** What a bulk create needs beyond the single create's dependencies: the orders' own idempotency keys. */
export interface BulkCreateDeps extends OrderDeps {
  idempotency: Pick<IdempotencyService, 'claimWithin'>;
}

/** An order's refusal as its result says it: its details' paths put under `orders.{index}.`. */
const itemError = (index: number, error: DomainError): BulkOrderError => ({
  code: ErrorCode.unprocessable,
  message: error.message,
  details: error.details.map((detail): ErrorDetail => ({
    ...detail,
    path: detail.path === '' ? `orders.${index}` : `orders.${index}.${detail.path}`,
    index,
  })),
});

/**
 * Creates many orders in one transaction, each as the single create would (its checks,
 * numbering, history, event and licence quota, in input order), each under a savepoint so that
 * one refused order leaves the others as they are. With `reject_everything` one refused order
 * rolls the whole batch back (422 naming every refused order); with `reject_failed_rows` the
 * others are kept. An order with an `idempotency_key` is claimed in the caller's key space (the
 * single create's): a key committed earlier with the same order answers that order again. With
 * a guard, the request's own Idempotency-Key is claimed first and the answer stored last.
 */
export const bulkCreateOrders = async (
  deps: BulkCreateDeps,
  access: AccessContext,
  { orders, error_policy: policy = 'reject_everything' }: BulkCreateSalesOrdersBody,
  idempotency?: IdempotencyGuard<BulkCreatedSalesOrders>,
): Promise<BulkCreatedSalesOrders> => {
  const { transactions } = deps;
  const owner = identityOf(access);
  return transactions.withTransaction(async (tx) => {
    await idempotency?.claim(tx);
    // The single create, run inside this transaction: its own transaction is this one.
    const inBatch: OrderDeps = {
      ...deps,
      transactions: {
        db: tx,
        withTransaction: (work) => work(tx),
        withSavepoint: (db, work) => transactions.withSavepoint(db, work),
      },
    };
    const createOne = async (order: BulkCreateSalesOrdersBody['orders'][number]): Promise<CreatedSalesOrder> => {
      const { idempotency_key: key, ...body } = order;
      if (key === undefined) return createOrder(inBatch, access, body);
      // The fingerprint is the create body's, as a single create with this key would store it.
      const claim = await deps.idempotency.claimWithin(
        tx,
        { subject: owner, key, request: body },
        CreatedSalesOrderSchema,
      );
      return 'stored' in claim ? claim.stored : createOrder(inBatch, access, body, claim.claimed);
    };

    const results: BulkOrderResult[] = [];
    for (const [index, order] of orders.entries()) {
      try {
        const created = await transactions.withSavepoint(tx, () => createOne(order));
        results.push({ index, status: 'created', order: created });
      } catch (error) {
        // The order's data is refused: its result says why. Anything else (a key still in
        // flight, the database away) fails the whole request.
        if (!(error instanceof DomainError) || error.kind !== 'unprocessable') throw error;
        results.push({ index, status: 'failed', error: itemError(index, error) });
      }
    }

    const refused = results.flatMap((result) => (result.error ? [result.error] : []));
    if (policy === 'reject_everything' && refused.length > 0) {
      // The answer holds MAX_ERROR_DETAILS details: each refused order gets its share, so that
      // every one is named (up to that many orders).
      const share = Math.max(1, Math.floor(MAX_ERROR_DETAILS / refused.length));
      throw unprocessable(
        refused.flatMap((error) => error.details.slice(0, share)),
        `Validation failed: ${refused.length} of ${orders.length} orders refused, none created`,
      );
    }
    const answer: BulkCreatedSalesOrders = {
      error_policy: policy,
      created: results.length - refused.length,
      failed: refused.length,
      results,
    };
    await idempotency?.complete(tx, [answer]);
    return answer;
  });
};
