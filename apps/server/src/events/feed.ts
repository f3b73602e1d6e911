import { encodeEventCursor, type EventPage, type ListEventsFilters } from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import type { Db } from '../db/transactions.js';
import { eventStore } from './store/event-store.js';

/**
 * GET /events: the page after the reader's cursor, in commit order. The next cursor is the
 * position of the page's last event, or on a short page the high-water mark the same snapshot
 * saw: every event up to it is readable, so a filtered reader does not scan the same stretch
 * again on its next call.
 */
export const listEvents = async (
  db: Db,
  access: AccessContext,
  { after, limit, types, sales_order_id }: ListEventsFilters,
): Promise<EventPage> => {
  const afterPosition = after?.position ?? 0;
  const page = await eventStore.page(db, {
    afterPosition,
    limit,
    types,
    salesOrderId: sales_order_id,
    scope: access.locations,
  });
  const hasMore = page.rows.length > limit;
  const rows = page.rows.slice(0, limit);
  const last = rows.at(-1)?.position;
  const nextPosition = hasMore ? last! : Math.max(afterPosition, last ?? 0, page.highWater);
  return {
    items: rows.map(({ position: _position, ...event }) => event),
    next_cursor: encodeEventCursor({ position: nextPosition }),
    has_more: hasMore,
  };
};
