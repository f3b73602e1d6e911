import type {
  CancelDeliveryBody,
  Delivery,
  DeliveryPage,
  ListDeliveriesQuery,
  RecordDeliveryBody,
  RecordReturnBody,
} from './generated/contract-types.js';
import type { TransitionOptions } from './options.js';
import { type ClientContext, definedOnly, transitionHeaders, unwrap, withRetries } from './transport.js';

/**
 * Deliveries: what left the depot against a confirmed order's lines, their cancellations and
 * returns. The writes send an Idempotency-Key (a random UUID unless given) and are retried with
 * it like the transitions; `ifMatch` names the order's version or ETag.
 */
export const deliveryMethods = ({ client, options }: ClientContext) => {
  const listDeliveries = (filters: ListDeliveriesQuery = {}): Promise<DeliveryPage> =>
    unwrap(client.listDeliveries({ query: definedOnly(filters) }));
  return {
    /**
     * POST /sales-orders/{id}/deliveries. A line taken past its ordered quantity (plus the
     * service's tolerance) rejects with SalesOrderUnprocessableError, `details[].code`
     * `over_delivery` at `lines.{n}.quantity`; an order that is not confirmed with
     * SalesOrderConflictError (`order_not_deliverable`).
     */
    recordDelivery: (orderId: number, body: RecordDeliveryBody, call: TransitionOptions = {}): Promise<Delivery> => {
      const headers = transitionHeaders(call, globalThis.crypto.randomUUID());
      return withRetries(options.retry, () => client.recordDelivery({ params: { id: orderId }, body, headers }));
    },
    /** GET /deliveries/{id} */
    getDelivery: (id: number): Promise<Delivery> => unwrap(client.getDelivery({ params: { id } })),
    /** GET /sales-orders/{id}/deliveries: every delivery of an order, oldest first. */
    listOrderDeliveries: (orderId: number): Promise<{ items: Delivery[] }> =>
      unwrap(client.listOrderDeliveries({ params: { id: orderId } })),
    /** GET /deliveries: one page; pass its `next_cursor` as `cursor` (same filters) for the next. */
    listDeliveries,
    /** Every delivery matching `filters`, page after page: `for await (const delivery of client.deliveries({ sales_order_id: 4 }))`. */
    deliveries: async function* (
      filters: Omit<ListDeliveriesQuery, 'cursor'> = {},
    ): AsyncGenerator<Delivery, void, undefined> {
      let cursor: string | undefined;
      do {
        const page = await listDeliveries({ ...filters, ...(cursor === undefined ? {} : { cursor }) });
        yield* page.items;
        cursor = page.next_cursor ?? undefined;
      } while (cursor !== undefined);
    },
    /** POST /deliveries/{id}/cancel: `invalid_transition` once cancelled, `delivery_has_returns` with returns (409). */
    cancelDelivery: (id: number, body: CancelDeliveryBody, call: TransitionOptions = {}): Promise<Delivery> => {
      const headers = transitionHeaders(call, globalThis.crypto.randomUUID());
      return withRetries(options.retry, () => client.cancelDelivery({ params: { id }, body, headers }));
    },
    /** POST /deliveries/{id}/returns: more than a line has left rejects with `return_exceeds_delivered` (422). */
    recordReturn: (id: number, body: RecordReturnBody, call: TransitionOptions = {}): Promise<Delivery> => {
      const headers = transitionHeaders(call, globalThis.crypto.randomUUID());
      return withRetries(options.retry, () => client.recordReturn({ params: { id }, body, headers }));
    },
  };
};
