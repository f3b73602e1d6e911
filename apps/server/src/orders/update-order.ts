import type { SalesOrder, UpdatedSalesOrder, UpdateSalesOrderBody } from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import { scopeOf } from '../auth/scope.js';
import { stateConflict, unprocessable } from '../errors/domain-error.js';
import { orderNumberKey } from './numbering.js';
import {
  EDITABLE_FIELDS,
  type EditableField,
  locationScopeProblems,
  lockedFieldRefusals,
  numberOrLocationChangeProblems,
} from './order.js';
import { type Expected, lockAsExpected } from './order-preconditions.js';
import { checkOrderReferences } from './order-references.js';
import { toReadShape } from './order-shapes.js';
import type { OrderDeps } from './order-use-case.js';
import { prepareOrder, stateOf } from './order-write-model.js';
import { recordOrderEvent } from './store/order-event-store.js';
import { orderReadStore } from './store/order-read-store.js';
import { orderWriteStore } from './store/order-write-store.js';

export interface UpdateOutcome {
  updated: UpdatedSalesOrder;
  /** The order as it reads after the update (its entity tag goes with the answer). */
  order: SalesOrder;
}

/**
 * Updates an order in one transaction: locks it and checks the caller's If-Match, checks the
 * references it changes, prepares the change (order-write-model.ts), refuses what its status
 * locks (409) before the change's problems (422), and writes the header,
 * the replaced lines and charges, the history entry and the `sales_order.updated` event. Any
 * refusal rolls everything back.
 */
export const updateOrder = (
  { transactions }: OrderDeps,
  access: AccessContext,
  id: number,
  input: UpdateSalesOrderBody,
  expected?: Expected,
): Promise<UpdateOutcome> =>
  transactions.withTransaction(async (tx) => {
    const current = await lockAsExpected(tx, id, scopeOf(access), expected);
    const contents = await orderWriteStore.contentsOf(tx, id);
    const before = stateOf(current, contents);
    // Only what the update changes must be active: the references the order already holds may not be.
    const references = await checkOrderReferences(
      tx,
      {
        customerId: input.customer_id,
        salesOrderDate: input.sales_order_date,
        details: input.details,
        fieldOfficerId: input.field_officer_id,
        portId: input.port_id,
      },
      {
        customerId: current.customer_id,
        salesOrderDate: current.sales_order_date,
        productIds: new Set(contents.lines.map((line) => line.product_id)),
        packsizeIds: new Set(contents.lines.flatMap((line) => (line.packsize_id === null ? [] : [line.packsize_id]))),
        fieldOfficerId: current.field_officer_id,
        portId: current.port_id,
      },
    );
    const prepared = prepareOrder(input, references, { action: 'update', actor: access.subject, before });
    const update = prepared.value!;
    const { changes } = update.history;

    // What the order's status locks comes first: a confirmed order's customer is not editable,
    // whether or not the new one exists.
    const changed: EditableField[] = [
      ...(input.sales_order_no !== undefined &&
      orderNumberKey(input.sales_order_no) !== orderNumberKey(current.sales_order_no)
        ? (['sales_order_no'] as const)
        : []),
      ...(input.location_id !== undefined && input.location_id !== current.location_id
        ? (['location_id'] as const)
        : []),
      ...changes.fields.map((change) => change.field as EditableField),
      ...(update.replaces.lines ? (['details'] as const) : []),
      ...(update.replaces.charges ? (['other_charges'] as const) : []),
    ];
    const sent = EDITABLE_FIELDS.filter((field) => input[field] !== undefined);
    const locked = lockedFieldRefusals(current.status, changed, sent);
    if (locked.length > 0) throw stateConflict(`The order is ${current.status}: these fields are locked`, locked);

    const problems = [
      ...(input.location_id === undefined ? [] : locationScopeProblems(access, input.location_id)),
      ...numberOrLocationChangeProblems(current, input),
      ...prepared.problems,
    ];
    if (problems.length > 0) throw unprocessable(problems);

    // A set sent back as it is stays as it is: its rows (and their ids) are not rewritten.
    const version = await orderWriteStore.writeUpdate(tx, id, update);
    await recordOrderEvent(tx, id, 'sales_order.updated');
    const order = await orderReadStore.findLive(tx, id, scopeOf(access));
    return {
      updated: { sales_order_id: id, updated: true as const, version },
      order: toReadShape(order!),
    };
  });
