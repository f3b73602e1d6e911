import { describe, expect, it } from 'vitest';

import type { SqlDb } from '../../src/db/sql-db.js';
import { type Reader, readRows } from '../../src/db/transactions.js';
import { Prisma } from '../../src/generated/prisma/client.js';

/**
 * A row read through SqlDb or readRows may come from Prisma (a numeric as a Decimal, a bigint as
 * a bigint, a date as a Date) or straight from pg (text for the first two, a date in the
 * process's time zone), so its type may name none of those: the statement casts them. The
 * `@ts-expect-error` lines are the probes: `pnpm typecheck` fails when one of them compiles.
 */
describe('rows read through SqlDb and readRows', () => {
  it('may not be typed with a Decimal, a bigint or a Date, at any depth (type-checked)', () => {
    const db = {} as SqlDb;
    const reader = {} as Reader;
    const query = Prisma.sql`SELECT 1`;
    const probes = () => [
      // @ts-expect-error a numeric column is text on the connection without Prisma
      db.$queryRaw<{ total: Prisma.Decimal }[]>(query),
      // @ts-expect-error a bigint column is text on the connection without Prisma
      db.$queryRaw<{ sequence: bigint | null }[]>(query),
      // @ts-expect-error pg reads a date at midnight in the process's time zone, Prisma in UTC
      readRows<{ order_date: Date }>(reader, query),
      // @ts-expect-error nested in a json value just the same
      readRows<{ line: { quantity: Prisma.Decimal } }>(reader, query),
      db.$queryRaw<{ total: string; sequence: string | null; order_date: string; id: number }[]>(query),
      readRows<{ line: { quantity: string } }>(reader, query),
    ];
    expect(typeof probes).toBe('function');
  });
});
