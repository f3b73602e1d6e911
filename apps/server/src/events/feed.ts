import {
  encodeEventCursor,
  type EventPage,
  EVENTS_PAGE_MAX_BYTES,
  type ListEventsFilters,
} from '@sales-order/contract';

import type { Db } from '../db/transactions.js';
import { eventStore } from './store/event-store.js';

/**
 * GET /events: the page after the reader's cursor, in commit order, ending early before the event
 * that would take it past EVENTS_PAGE_MAX_BYTES of data (one event always comes). The next cursor is the
 * position of the page's last event, or on a short page the high-water mark the same snapshot
 * saw: every event up to it is readable, so a filtered reader does not scan the same stretch
 * again on its next call.
 */
export const listEvents = async (
  db: Db,
  { after, limit, types, sales_order_id }: ListEventsFilters,
): Promise<EventPage> => {
  const afterPosition = after?.position ?? 0;
  const {
    rows,
    more: hasMore,
    highWater,
  } = await eventStore.page(db, {
    afterPosition,
    limit,
    maxBytes: EVENTS_PAGE_MAX_BYTES,
    types,
    salesOrderId: sales_order_id,
  });
  const last = rows.at(-1)?.position;
  const nextPosition = hasMore ? last! : Math.max(afterPosition, last ?? 0, highWater);
  return {
    items: rows.map(({ position: _position, ...event }) => event),
    next_cursor: encodeEventCursor({ position: nextPosition }),
    has_more: hasMore,
  };
};
