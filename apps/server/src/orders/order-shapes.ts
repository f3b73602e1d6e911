import type { SalesOrder } from '@sales-order/contract';

import type { RenderedOrder } from './store/order-read-store.js';

/** The read shape of an order a write answers with, from the text its statement rendered. Pure. */

/**
 * A rendered order's fields, for the writes that answer with the order or compare it (the read
 * itself passes the text through). The text is the contract's shape already (order-read-shape.ts).
 */
export const toReadShape = (order: RenderedOrder): SalesOrder => order.json.parse();
