import { decodeEventCursor, DETAIL_CODES, FeedCode, type SalesOrderEvent } from '@sales-order/contract';
import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';

/**
 * A feed reader whose cursor is older than the retention period is told so
 * (410 `cursor_past_retention` with the oldest cursor), instead of resuming after the purged
 * events as if it had read them.
 */
describe('GET /events: a cursor past retention', () => {
  const suite = useServerWithFixtures({ EVENT_RETENTION_DAYS: '1' });
  const prisma = () => suite.server.database.prisma;

  const page = async (after?: string) => {
    const response = await suite.server.http
      .get('/events')
      .query({ limit: 500, ...(after === undefined ? {} : { after }) });
    return response;
  };
  /** Writes two events (a create and an update) for each of `orders` new orders, and positions them. */
  const writeEvents = async (orders: number) => {
    for (let index = 0; index < orders; index += 1) {
      const id = (await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data
        .sales_order_id as number;
      await suite.server.http
        .put(`/sales-orders/${id}`)
        .send({ remarks: `edit ${index}` })
        .expect(200);
    }
    await suite.server.events.relay.runOnce();
  };
  const positionOf = (cursor: string) => decodeEventCursor(cursor)!.position;

  it('answers 410 with the oldest cursor once the events after the cursor are purged; a cursor at the oldest kept one still reads', async () => {
    await writeEvents(3);
    const first = await page();
    expect(first.status).toBe(200);
    const read = first.body.data.items as SalesOrderEvent[];
    expect(read.length).toBeGreaterThanOrEqual(6);
    // A reader that has read two events stops here.
    const stale = (await suite.server.http.get('/events').query({ limit: 2 }).expect(200)).body.data
      .next_cursor as string;

    // Every event so far grows old and is purged; later events stay.
    await prisma().$executeRaw`UPDATE events SET occurred_at = now() - interval '3 days'`;
    await writeEvents(2);
    await suite.server.events.purge!.runOnce();
    const kept = (await page()).body.data.items as SalesOrderEvent[];
    expect(kept).toHaveLength(4);

    const gone = await page(stale);
    expect(gone.status, JSON.stringify(gone.body)).toBe(410);
    expect(gone.body).toEqual({
      success: false,
      error: {
        code: 410,
        message: expect.stringMatching(/purged/),
        details: [
          {
            path: 'after',
            code: 'cursor_past_retention',
            message: expect.stringMatching(/EVENT_RETENTION_DAYS/),
            oldest_cursor: expect.any(String),
          },
        ],
      },
    });
    expect(DETAIL_CODES).toContain(FeedCode.cursorPastRetention);
    const oldest = gone.body.error.details[0].oldest_cursor as string;
    // Read on from there: the first kept event comes first.
    const resumed = await page(oldest);
    expect(resumed.status).toBe(200);
    expect((resumed.body.data.items as SalesOrderEvent[]).map((event) => event.id)).toEqual(
      kept.map((event) => event.id),
    );
    expect(positionOf(oldest)).toBeGreaterThan(positionOf(stale));

    // A reader that had read everything purged is not behind: its cursor still reads.
    const upToDate = (await page(first.body.data.next_cursor as string)).body;
    expect(upToDate.success, JSON.stringify(upToDate)).toBe(true);
    expect(upToDate.data.items).toHaveLength(4);
    // Without a cursor, the feed starts at the oldest kept event.
    expect((await page()).status).toBe(200);
    // The document declares the answer.
    const document = (await request(suite.server.api).get('/openapi.json').expect(200)).body;
    expect(Object.keys(document.paths['/events'].get.responses)).toContain('410');
  });

  it('answers 410 when every event after the cursor was purged and none is kept', async () => {
    await suite.server.events.relay.runOnce();
    const before = (await page()).body.data.next_cursor as string;
    await writeEvents(1);
    await prisma().$executeRaw`UPDATE events SET occurred_at = now() - interval '3 days'`;
    await suite.server.events.purge!.runOnce();
    expect((await page()).body.data.items).toEqual([]);
    const gone = await page(before);
    expect(gone.status).toBe(410);
    const oldest = gone.body.error.details[0].oldest_cursor as string;
    expect(positionOf(oldest)).toBe(positionOf(before) + 2);
    expect((await page(oldest)).status).toBe(200);
  });
});
