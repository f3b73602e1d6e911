import { describe, expect, it } from 'vitest';

import { covers, reaches, type Scope, scopeOf, systemScope } from '../../src/auth/scope.js';
import type { Db } from '../../src/db/transactions.js';
import { withinLocations } from '../../src/db/within-locations.js';
import { orderReadStore } from '../../src/orders/store/order-read-store.js';

/**
 * A scope is made by `scopeOf(access)` or is the system's `systemScope`, nothing else: the
 * `@ts-expect-error` lines below are the probes (`pnpm typecheck` fails when one of them
 * compiles, that is, when a store would take a forged scope).
 */
describe('Scope', () => {
  it('cannot be forged: a store refuses null, a list or an object made up on the spot (type-checked)', () => {
    const db = {} as Db;
    const probes = () => [
      // @ts-expect-error null was "every location" before scopes were a type
      orderReadStore.findLive(db, 1, null),
      // @ts-expect-error a bare list of location ids is no scope
      orderReadStore.findLive(db, 1, [1, 2]),
      // @ts-expect-error an object shaped like a scope is still no scope
      orderReadStore.findLive(db, 1, { locations: 'every' }),
      orderReadStore.findLive(db, 1, scopeOf({ locations: [1] })),
    ];
    expect(typeof probes).toBe('function');
  });

  it("is the credential's locations, every location for a credential given none", () => {
    expect(scopeOf({ locations: null }).locations).toBe('every');
    expect(scopeOf({ locations: [3, 1] }).locations).toEqual([3, 1]);
    expect(scopeOf({ locations: [] }).locations).toEqual([]);
    expect(systemScope.locations).toBe('every');
  });

  it('keeps its list from later changes of the credential it was made of', () => {
    const locations = [1, 2];
    const scope: Scope = scopeOf({ locations });
    locations.push(3);
    expect(reaches(scope, 3)).toBe(false);
    expect(Object.isFrozen(scope.locations)).toBe(true);
  });

  it('reaches its own locations; covers a record only when every location of it is inside', () => {
    const dhaka = scopeOf({ locations: [1] });
    expect(reaches(dhaka, 1)).toBe(true);
    expect(reaches(dhaka, 2)).toBe(false);
    expect(reaches(scopeOf({ locations: [] }), 1)).toBe(false);
    expect(covers(dhaka, [1])).toBe(true);
    expect(covers(dhaka, [1, 2])).toBe(false);
    // A record for every location lies inside no limited scope; one for none inside all.
    expect(covers(dhaka, null)).toBe(false);
    expect(covers(dhaka, [])).toBe(true);
    expect(covers(systemScope, null)).toBe(true);
  });

  it('writes one condition in SQL, the same rule for a record at a location and one naming a set', () => {
    const dhaka = scopeOf({ locations: [1, 4] });
    const at = withinLocations(dhaka, 'o.location_id');
    expect(at.sql).toContain('o.location_id = ANY(');
    expect(at.values).toEqual([[1, 4]]);
    const set = withinLocations(dhaka, { allOf: 'k.locations' });
    expect(set.sql).toContain('k.locations IS NOT NULL AND k.locations <@');
    expect(set.values).toEqual([[1, 4]]);
    expect(withinLocations(systemScope, 'o.location_id').sql).toContain('TRUE');
    expect(withinLocations(scopeOf({ locations: [] }), 'o.location_id').values).toEqual([[]]);
  });
});
