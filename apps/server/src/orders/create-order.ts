import { type CreatedSalesOrder, type CreateSalesOrderBody, ValidationCode } from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import { scopeOf } from '../auth/scope.js';
import type { Db, Reader } from '../db/transactions.js';
import type { Checked } from '../errors/checked.js';
import { unprocessable } from '../errors/domain-error.js';
import type { IdempotencyGuard } from '../idempotency/idempotency-service.js';
import { toJsonNumber } from '../shared/money.js';
import { counterAfterSuppliedNumber } from './numbering.js';
import { locationScopeProblems } from './order.js';
import { confirmLocked } from './order-confirmation.js';
import { checkOrderReferences, type ResolvedReferences } from './order-references.js';
import type { OrderDeps } from './order-use-case.js';
import { type PreparedOrder, prepareOrder } from './order-write-model.js';
import { isUniqueViolation, orderWriteStore } from './store/order-write-store.js';

export const duplicateNumber = (salesOrderNo: string) =>
  unprocessable([
    {
      path: 'sales_order_no',
      message: `${salesOrderNo} is already the number of another order (case and zero padding ignored, deleted orders included)`,
      code: ValidationCode.duplicateOrderNumber,
    },
  ]);

/** What a create body refers to, for the reference check. */
export const referencesOf = (input: CreateSalesOrderBody) => ({
  customerId: input.customer_id,
  locationId: input.location_id,
  salesOrderDate: input.sales_order_date,
  details: input.details,
  fieldOfficerId: input.field_officer_id,
  portId: input.port_id,
});

/**
 * A new order prepared from a create body and its checked references (order-write-model.ts),
 * refused outside the caller's location scope: pure, so a bulk create prepares each of its
 * orders exactly as a single create does.
 */
export const prepareCreate = (
  access: Pick<AccessContext, 'subject' | 'locations'>,
  input: CreateSalesOrderBody,
  references: Checked<ResolvedReferences>,
): Checked<PreparedOrder | null> => {
  const outOfScope = locationScopeProblems(access, input.location_id);
  const prepared = prepareOrder(
    input,
    {
      value: references.value,
      // Outside its scope, the caller learns nothing more of the location (not even whether it exists).
      problems:
        outOfScope.length > 0
          ? references.problems.filter((problem) => problem.path !== 'location_id')
          : references.problems,
    },
    { action: 'create', actor: access.subject },
  );
  return { value: prepared.value, problems: [...outOfScope, ...prepared.problems] };
};

/**
 * Creates an order: checks its references, prepares it (order-write-model.ts: prices it, its
 * number, its history entry), and stores it. With an idempotency guard, its key is claimed and
 * its result stored in the order's transaction.
 */
export const createOrder = async (
  { transactions, orderNumberMaxAhead }: OrderDeps,
  // Who creates and where it may: permissions are the route's (or the import's) to check.
  access: Pick<AccessContext, 'subject' | 'locations'>,
  input: CreateSalesOrderBody,
  idempotency?: IdempotencyGuard<CreatedSalesOrder>,
): Promise<CreatedSalesOrder> => {
  const references = await checkOrderReferences(transactions.db, referencesOf(input));
  const prepared = prepareCreate(access, input, references);
  const order = prepared.value;
  if (prepared.problems.length > 0 || !order) throw unprocessable(prepared.problems);
  const numbering = order.numbering!;

  const write = async (db: Reader) => {
    const [stored] = await orderWriteStore.insertOrders(db, [order], orderNumberMaxAhead).catch((error: unknown) => {
      if (!isUniqueViolation(error)) throw error;
      // A supplied number already taken, or the server's next one: that only by an order
      // stored without moving the counter.
      throw duplicateNumber(numbering.kind === 'next' ? 'the next number of the series' : numbering.salesOrderNo);
    });
    const result: CreatedSalesOrder = {
      sales_order_id: stored!.id,
      order_number: stored!.salesOrderNo,
      total_amount: toJsonNumber(order.totals.grand_total),
    };
    return { result, counter: stored!.counter };
  };

  const confirm = input.status === 'confirmed';
  // One statement is its own transaction: a server-numbered or free-form draft without an
  // Idempotency-Key needs no BEGIN or COMMIT, and its series' counter is locked by that
  // statement only; it goes straight to the pool (transactions.reader), without Prisma. A claimed key is part of the transaction; a supplied series number is
  // refused after the statement when too far ahead of the counter, and a confirm after it,
  // rolling the order and its number back.
  if (!idempotency && numbering.kind !== 'supplied-series' && !confirm)
    return (await transactions.retryingLockWaits(() => write(transactions.reader))).result;
  return transactions.withTransaction(async (tx) => {
    await idempotency?.claim(tx);
    const { result, counter } = await write(tx);
    if (numbering.kind === 'supplied-series') {
      // The counter stayed where it was when the number is too far ahead of it.
      const moved = counterAfterSuppliedNumber(counter!, numbering.sequence, orderNumberMaxAhead);
      if (moved.value === null) throw unprocessable(moved.problems);
    }
    if (confirm) await confirmCreated(tx, result.sales_order_id, access, input.acknowledge_warnings === true);
    await idempotency?.complete(tx, [result]);
    return result;
  });
};

/** A create asking for `status: confirmed`: the confirm of the draft just written, in its transaction. */
export const confirmCreated = async (
  tx: Db,
  id: number,
  access: Pick<AccessContext, 'subject' | 'locations'>,
  acknowledgeWarnings: boolean,
) => {
  const order = (await orderWriteStore.lockLive(tx, id, scopeOf(access)))!;
  // A bulk create goes on after a refused confirm, in the same transaction.
  await confirmLocked(tx, id, order, { acknowledgeWarnings, actor: access.subject, refusalEndsTransaction: false });
};
