import type { ApplyChangeBody, OpenChangeBody, OrderChange, OrderChangeList } from './generated/contract-types.js';
import type { TransitionOptions } from './options.js';
import { type ClientContext, transitionHeaders, unwrap, withRetries } from './transport.js';

/**
 * Change requests on a confirmed order: open one (previewed), apply or discard it, list them.
 * Refusals reject with the typed errors of errors.ts, their `details[].code` one of ChangeCode's:
 * SalesOrderConflictError (409: `change_already_open`, `change_not_open`, `order_not_changeable`
 * with `currentStatus`), SalesOrderUnprocessableError (422: `quantity_below_delivered`,
 * `line_has_deliveries`, `unknown_order_line`, `empty_change`, or licence warnings on apply),
 * SalesOrderPreconditionFailedError (412: a stale `ifMatch` on open, or `change_no_longer_holds`
 * on apply, with the order's `currentVersion`).
 */
export const changeMethods = ({ client, options }: ClientContext) => ({
  /**
   * POST /sales-orders/{id}/changes: a line with `sales_order_detail_id` changes that line (fields
   * left out stay), one without adds a line, `remove: true` removes the named line. Resolves with
   * the change, `status: 'open'`: the order as it would be, the difference per line and the
   * licence findings of the increase. The order itself does not change. `ifMatch` as for updates;
   * retried like the transitions, with one Idempotency-Key (a random UUID unless given).
   */
  openChange: (id: number, body: OpenChangeBody, call: TransitionOptions = {}): Promise<OrderChange> => {
    const headers = transitionHeaders(call, globalThis.crypto.randomUUID());
    return withRetries(options.retry, () => client.openChange({ params: { id }, body, headers }));
  },
  /**
   * POST /sales-orders/{id}/changes/{change_id}/apply: the order gets a new version. Licence
   * warnings of the increase reject with SalesOrderUnprocessableError unless `acknowledge_warnings`
   * is true (which needs `licences.override`). Retried with one Idempotency-Key, so a retry
   * never applies twice (nor answers 409 for its own first attempt).
   */
  applyChange: (
    id: number,
    changeId: number,
    body: ApplyChangeBody = {},
    { idempotencyKey = globalThis.crypto.randomUUID() }: Pick<TransitionOptions, 'idempotencyKey'> = {},
  ): Promise<OrderChange> =>
    withRetries(options.retry, () =>
      client.applyChange({ params: { id, change_id: changeId }, body, headers: { 'idempotency-key': idempotencyKey } }),
    ),
  /** POST /sales-orders/{id}/changes/{change_id}/discard: the change ends, the order stays as it is. */
  discardChange: (id: number, changeId: number): Promise<OrderChange> =>
    unwrap(client.discardChange({ params: { id, change_id: changeId } })),
  /** GET /sales-orders/{id}/changes: the order's change requests, newest first. */
  listChanges: (id: number): Promise<OrderChangeList> => unwrap(client.listChanges({ params: { id } })),
});
