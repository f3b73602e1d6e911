import {
  encodeEventCursor,
  type EventPage,
  EVENTS_PAGE_MAX_BYTES,
  FeedCode,
  type FeedEvent,
  type ListEventsFilters,
} from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import type { Db } from '../db/transactions.js';
import { DomainError } from '../errors/domain-error.js';
import { eventStore, type FeedRow } from './store/event-store.js';

/**
 * A stored event as the feed answers it: its subject's id as `<subject>_id` (`sales_order_id`,
 * `api_key_id`), an order's version, and its data (contract: FeedEventSchema).
 */
const apiEvent = ({ id, type, occurred_at, subject_type, subject_id, version, data }: FeedRow): FeedEvent =>
  ({
    id,
    type,
    occurred_at,
    [`${subject_type}_id`]: subject_id,
    ...(version === null ? {} : { version }),
    data,
  }) as FeedEvent;

/**
 * 410 when events right after the reader's position were purged (positions are given one after
 * another, so the oldest kept position says whether any after `afterPosition` is gone). Read
 * after the page: the oldest position only grows, so a purge racing the page is seen here and
 * answered 410 rather than a page that silently skipped events.
 */
const refusePurgedStretch = async (db: Db, afterPosition: number, highWater: number): Promise<void> => {
  const oldest = await eventStore.oldestPosition(db);
  // None kept: the stretch up to the high-water mark is gone, if the reader had not read it.
  const firstKept = oldest ?? highWater + 1;
  if (afterPosition + 1 >= firstKept) return;
  const message =
    'Events after this cursor were purged (older than EVENT_RETENTION_DAYS): resynchronise, then read on from oldest_cursor';
  throw new DomainError('gone', message, [
    {
      path: 'after',
      message,
      code: FeedCode.cursorPastRetention,
      oldest_cursor: encodeEventCursor({ position: firstKept - 1 }),
    },
  ]);
};

/**
 * GET /events: the page after the reader's cursor, in commit order, ending early before the event
 * that would take it past EVENTS_PAGE_MAX_BYTES of data (one event always comes). The next cursor is the
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
    reader: access,
  });
  // A position past the high-water mark was never given out (positions only grow): a forged
  // cursor, answered as one the service cannot decode rather than as an empty page.
  if (afterPosition > highWater) {
    throw new DomainError('invalid_request', 'Invalid input data', [
      { path: 'after', message: 'is not a cursor this service issued', code: 'custom' },
    ]);
  }
  // Without a cursor the reader starts at the oldest event kept: nothing was skipped.
  if (after !== undefined) await refusePurgedStretch(db, afterPosition, highWater);
  const last = rows.at(-1)?.position;
  const nextPosition = hasMore ? last! : Math.max(afterPosition, last ?? 0, highWater);
  return {
    items: rows.map(apiEvent),
    next_cursor: encodeEventCursor({ position: nextPosition }),
    has_more: hasMore,
  };
};
