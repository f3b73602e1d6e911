import { describe, expect, it } from 'vitest';

import { eventually } from './support/eventually.js';
import { importLine, orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';

/** An API time (`YYYY-MM-DD HH:mm:ss`, UTC) as milliseconds. */
const msOf = (time: string) => Date.parse(`${time.replace(' ', 'T')}Z`);

/**
 * An import's orders count against its starter's BULK_ORDERS_PER_MINUTE window, as a bulk
 * create's do. One POST /imports made 2,000 orders after the caller's window was spent; now an
 * import that finds the window spent waits for its reset instead of failing, and its progress
 * says until when.
 */
describe("imports count against the caller's bulk-order window", () => {
  const suite = useServerWithFixtures({ BULK_ORDERS_PER_MINUTE: '10', IMPORT_CHUNK_SIZE: '4' });

  it('an import after the window is spent waits for the reset, saying so, then makes its orders within the next', async () => {
    const { http } = suite.server;
    const bulk = (count: number) =>
      http.post('/sales-orders/bulk').send({ orders: Array.from({ length: count }, () => orderBody(suite.fixtures)) });
    await bulk(10).expect(201);
    // Spent: one more through a bulk create is refused, and says when the window resets.
    const refused = await bulk(1).expect(429);
    const resetBy = Date.now() + Number(refused.headers['retry-after']) * 1_000;

    const refs = Array.from({ length: 6 }, (_, index) => `quota-${index}`);
    const started = await http
      .post('/imports')
      .set('Content-Type', 'application/x-ndjson')
      .send(refs.map((ref) => importLine(suite.fixtures, ref)).join('\n'))
      .expect(202);
    const id = started.body.data.import_id as number;
    let waiting: Record<string, unknown> = {};
    await eventually(async () => {
      waiting = (await http.get(`/imports/${id}`)).body.data;
      return waiting.waiting_until !== null;
    }, 30_000);
    expect(waiting).toMatchObject({ state: 'running', orders_created: 0, orders_failed: 0 });
    // Until the window's reset, as the bulk create's refusal said (to the second either way).
    expect(Math.abs(msOf(waiting.waiting_until as string) - resetBy)).toBeLessThanOrEqual(2_000);

    let done: Record<string, unknown> = {};
    await eventually(async () => {
      done = (await http.get(`/imports/${id}`)).body.data;
      return done.state === 'completed';
    }, 120_000);
    expect(done).toMatchObject({ orders_created: 6, orders_failed: 0, waiting_until: null });
    // None of its orders was made before the reset.
    const made = await suite.server.database.prisma.salesOrder.findMany({
      where: { customerReference: { in: refs } },
      select: { createdAt: true },
    });
    expect(made).toHaveLength(6);
    for (const { createdAt } of made) expect(createdAt.getTime()).toBeGreaterThanOrEqual(resetBy - 2_000);
    // They were counted in the new window: 6 + 5 is more than 10, 6 + 4 is not.
    await bulk(5).expect(429);
    await bulk(4).expect(201);
  }, 180_000);
});
