import type { EventPage, EventType, FeedEvent } from './generated/contract-types.js';
import { type ClientContext, definedOnly, unwrap } from './transport.js';

/** The change feed (GET /events): a page at a time, or every event until caught up. */
export const eventMethods = ({ client }: ClientContext) => {
  const listEvents = <T extends EventType = EventType>({ types, ...query }: ListEventsOptions<T> = {}): Promise<
    EventPageOf<T>
  > =>
    // The service answers only events of the types asked for: the page's items are of those.
    unwrap(
      client.listEvents({ query: definedOnly({ ...query, ...(types ? { types: types.join(',') } : {}) }) }),
    ) as Promise<EventPageOf<T>>;
  return {
    /**
     * GET /events: the events after `after` (a `next_cursor`; omitted, the oldest kept), in commit
     * order. Keep the page's `next_cursor` and call again with it: nothing committed is skipped.
     * Orders' events, for a caller holding api_keys.manage API keys' too, and the ends of the
     * caller's own imports (with sales_orders.import): narrow by `type`, or
     * ask for `types` (the items are then typed as those).
     */
    listEvents,
    /**
     * Every event after `after` until the feed is caught up, page after page, for
     * `for await (const event of feed)` where `feed = client.events({ after })`; then
     * `feed.cursor` is where to resume next time (also after a `break`: the cursor of the last
     * page read; events of that page after the one you stopped at come again). The generator's
     * return value is the same cursor.
     */
    events: <T extends EventType = EventType>(options: ListEventsOptions<T> = {}): EventFeed<EventOf<T>> => {
      let cursor = options.after;
      const pages = async function* (): AsyncGenerator<EventOf<T>, string, undefined> {
        for (;;) {
          const page = await listEvents<T>({ ...options, after: cursor });
          yield* page.items;
          cursor = page.next_cursor;
          if (!page.has_more) return cursor;
        }
      };
      return Object.defineProperty(pages(), 'cursor', { get: () => cursor, enumerable: true }) as EventFeed<EventOf<T>>;
    },
  };
};

/**
 * The events of `client.events()`, for `for await`; `cursor` is the feed's `next_cursor` as far
 * as it has been read (the `after` given until the first page arrives).
 */
export type EventFeed<E extends FeedEvent = FeedEvent> = AsyncGenerator<E, string, undefined> & {
  readonly cursor: string | undefined;
};

/**
 * The events of these types: `SalesOrderEvent` for `sales_order.*` types, `ApiKeyEvent` for
 * `api_key.*`, `ImportEvent` for `import.*`; every kind (narrow by `type`) when no `types` are given.
 */
export type EventOf<T extends EventType> = EventType extends T ? FeedEvent : NarrowedEvent<FeedEvent, T>;

/**
 * Each kind of event whose `type` can be one of `T`, with `type` narrowed to those: a kind's
 * `type` is a union (`SalesOrderEvent`'s every `sales_order.*`), which `Extract<FeedEvent,
 * { type: T }>` would never match for a `T` of fewer types.
 */
type NarrowedEvent<E, T extends EventType> = E extends { type: infer K }
  ? [Extract<K, T>] extends [never]
    ? never
    : E & { type: Extract<K, T> }
  : never;

/** A page of the feed whose items are of these types. */
export type EventPageOf<T extends EventType> = Omit<EventPage, 'items'> & { items: EventOf<T>[] };

/** Options of `listEvents` and `events`: `types` as a list rather than the query's comma-separated text. */
export interface ListEventsOptions<T extends EventType = EventType> {
  /** A `next_cursor` of the feed. */
  after?: string | undefined;
  /** 1..500, default 100. */
  limit?: number | undefined;
  /** Only events of these types (the items are typed as them); omitted, every type the caller may read. */
  types?: T[] | undefined;
  sales_order_id?: number | undefined;
}
