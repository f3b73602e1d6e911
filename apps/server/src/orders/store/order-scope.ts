import type { LocationScope } from '../../auth/access-context.js';
import { Prisma } from '../../generated/prisma/client.js';

/**
 * The one condition that keeps a caller inside its locations (docs/decisions.md, "Location scope:
 * a store API, not row-level security"). Every statement of the order stores that reads or locks
 * orders takes the caller's scope and writes `${inScope(scope, 'o.location_id')}` into its WHERE;
 * the few that must see every location (numbering, the licence quota, the outbox relay) write
 * `${ACROSS_LOCATIONS}` and say why. test/unit/order-scope-statements.test.ts reads the stores and
 * fails on a statement about `sales_orders` that does neither, so a forgotten condition cannot
 * ship.
 */

/** A caller's locations as a SQL condition on the given column (`o.location_id`). */
export const inScope = (scope: LocationScope, column: string): Prisma.Sql =>
  scope === null
    ? Prisma.sql`/* location scope: all */ TRUE`
    : Prisma.sql`/* location scope */ ${Prisma.raw(column)} = ANY(${[...scope]}::int[])`;

/** For the statements that must see every location whatever the caller's scope; each says why. */
export const ACROSS_LOCATIONS: Prisma.Sql = Prisma.sql`/* across locations */ TRUE`;

/**
 * For a statement on an order this transaction has already locked through `lockLive`, whose own
 * condition applied the caller's scope: the row is known to be in scope.
 */
export const LOCKED_IN_SCOPE: Prisma.Sql = Prisma.sql`/* locked in scope */ TRUE`;
