import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

import { transactionPort } from '../src/db/transactions.js';
import { DomainError } from '../src/errors/domain-error.js';
import { createIdempotencyService, type IdempotentRequest } from '../src/idempotency/idempotency-service.js';
import { type QueryCountingServer, startQueryCountingServer } from './support/query-counting-server.js';

/**
 * The Idempotency-Key protocol for many keys in one transaction (what a bulk create's items
 * use; a route's single key is a list of one, pinned over HTTP by idempotency.test.ts): the
 * keys are looked up, claimed and completed with one statement each, whatever their number;
 * stored results are replayed, a key used with another request is refused, a key let go is
 * free again, and two lists sharing keys never do a key's work twice.
 */
describe('Idempotency-Key protocol: many keys in one transaction', () => {
  let server: QueryCountingServer;
  const Result = z.object({ n: z.number() });

  beforeAll(async () => {
    server = await startQueryCountingServer();
  });
  afterAll(() => server?.close());

  const service = () =>
    createIdempotencyService(server.database.prisma, { ttlHours: 1, waitSeconds: 10, waitSliceMs: 2_000 });
  const transactions = () => transactionPort(server.database.prisma);
  /** Requests of one caller (an API key's identity is its subject as written). */
  type Listed = IdempotentRequest & { subject: string };
  const requests = (subject: string, keys: string[], body = 'same'): Listed[] =>
    keys.map((key) => ({ subject, key, request: { key, body } }));

  /** Runs a list, doing each pending request's "work" (a result from its index) in one transaction. */
  const runList = (list: Listed[], work: (index: number) => number | undefined = (index) => index) => {
    const performed: number[] = [];
    const caller = { method: 'api_key' as const, subject: list[0]!.subject, locations: null };
    const outcome = service().runEach(
      caller,
      list,
      Result,
      (pending, guard) =>
        transactions().withTransaction(async (tx) => {
          await guard.claim(tx);
          performed.push(...pending);
          const results = pending.map((index) => {
            const n = work(index);
            return n === undefined ? undefined : { n };
          });
          await guard.complete(tx, results);
          return results;
        }),
      () => [],
    );
    return { outcome, performed };
  };

  it('claims and completes 1 or 30 keys with the same statements, then replays each', async () => {
    const one = runList(requests('caller-a', ['one-1']));
    const oneStatements = await server.queriesDuring(() => one.outcome);
    const keys = Array.from({ length: 30 }, (_, index) => `many-${index}`);
    const many = runList(requests('caller-a', keys));
    const manyStatements = await server.queriesDuring(() => many.outcome);
    expect(manyStatements).toHaveLength(oneStatements.length);
    // The look-up, the claim, the result and the COMMIT: nothing per key.
    expect(manyStatements.filter((sql) => /idempotency_keys/.test(sql))).toHaveLength(3);
    expect(many.performed).toEqual(keys.map((_, index) => index));
    expect((await many.outcome).earlier.every((outcome) => outcome === undefined)).toBe(true);

    const again = runList(requests('caller-a', keys));
    const { earlier, performed } = await again.outcome;
    expect(again.performed).toEqual([]);
    expect(performed).toBeUndefined();
    expect(earlier.map((outcome) => outcome?.kind === 'replayed' && outcome.result.n)).toEqual(
      keys.map((_, index) => index),
    );
  });

  it('runs only the new keys of a list, refuses a key used with another request, and keys are per caller', async () => {
    await runList(requests('caller-b', ['mixed-0', 'mixed-1'])).outcome;
    const list = [
      ...requests('caller-b', ['mixed-0']),
      ...requests('caller-b', ['mixed-1'], 'another body'),
      ...requests('caller-b', ['mixed-2']),
    ];
    const run = runList(list, (index) => 100 + index);
    const { earlier, performed } = await run.outcome;
    expect(run.performed).toEqual([2]);
    expect(performed).toEqual([{ n: 102 }]);
    expect(earlier[0]).toEqual({ kind: 'replayed', result: { n: 0 } });
    expect(earlier[1]?.kind).toBe('reused');
    expect(earlier[1]?.kind === 'reused' && earlier[1].error).toBeInstanceOf(DomainError);
    // Another caller's keys of the same names are its own.
    const other = runList(requests('caller-c', ['mixed-0', 'mixed-1']));
    await other.outcome;
    expect(other.performed).toEqual([0, 1]);
  });

  it('a key completed without a result is let go: the next run does its work', async () => {
    const first = runList(requests('caller-d', ['free-0', 'free-1']), (index) => (index === 0 ? undefined : 1));
    await first.outcome;
    const second = runList(requests('caller-d', ['free-0', 'free-1']));
    const { earlier } = await second.outcome;
    expect(second.performed).toEqual([0]);
    expect(earlier[1]).toEqual({ kind: 'replayed', result: { n: 1 } });
  });

  it('two lists sharing keys in opposite orders at once: each key is worked once, the other list replays it', async () => {
    const keys = Array.from({ length: 10 }, (_, index) => `race-${index}`);
    const forward = runList(requests('caller-e', keys));
    const backward = runList(requests('caller-e', [...keys].reverse()), (index) => keys.length - 1 - index);
    const [a, b] = await Promise.all([forward.outcome, backward.outcome]);
    // One list did every key's work, or each did some: never a key twice.
    const worked = [
      ...forward.performed.map((index) => keys[index]),
      ...backward.performed.map((index) => [...keys].reverse()[index]),
    ];
    expect([...worked].sort()).toEqual([...keys].sort());
    const results = (outcome: typeof a, order: string[]) =>
      order.map((key, index) => {
        const before = outcome.earlier[index];
        return before?.kind === 'replayed' ? before.result.n : undefined;
      });
    // Whatever was replayed is the result the other list stored for that key (its index in `keys`).
    expect(results(a, keys).every((n, index) => n === undefined || n === index)).toBe(true);
    expect(results(b, [...keys].reverse()).every((n, index) => n === undefined || n === keys.length - 1 - index)).toBe(
      true,
    );
  });
});
