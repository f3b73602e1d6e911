import type { Scope } from '../auth/scope.js';
import { Prisma } from '../generated/prisma/client.js';

/** How a record is located: by one location id column, or by a column listing every location it covers. */
export type Located = string | { allOf: string };

/**
 * The one condition that keeps a statement inside a scope. `column` is the record's location id
 * (`o.location_id`), or `{ allOf: 'k.locations' }` for a record naming a set of locations (int[];
 * NULL for every location), which is inside the scope when every one of them is. Statements that
 * must see every location whatever the caller write `ACROSS_LOCATIONS` and say why;
 * test/unit/scope-statements.test.ts fails on a statement about a located table that does neither.
 */
export const withinLocations = (within: Scope, column: Located): Prisma.Sql => {
  if (within.locations === 'every') return Prisma.sql`/* location scope: every */ TRUE`;
  const ids = [...within.locations];
  return typeof column === 'string'
    ? Prisma.sql`/* location scope */ ${Prisma.raw(column)} = ANY(${ids}::int[])`
    : Prisma.sql`/* location scope */ (${Prisma.raw(column.allOf)} IS NOT NULL AND ${Prisma.raw(column.allOf)} <@ ${ids}::int[])`;
};

/** For the statements that must see every location whatever the caller's scope; each says why. */
export const ACROSS_LOCATIONS: Prisma.Sql = Prisma.sql`/* across locations */ TRUE`;

/**
 * For a statement on an order this transaction has already locked through a statement that
 * applied the caller's scope: the row is known to be in scope.
 */
export const LOCKED_IN_SCOPE: Prisma.Sql = Prisma.sql`/* locked in scope */ TRUE`;
