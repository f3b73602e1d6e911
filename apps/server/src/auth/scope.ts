import type { AccessContext } from './access-context.js';

declare const scopeBrand: unique symbol;

/**
 * Where a statement may look: the locations of the caller it runs for. Every store that reads or
 * writes a located record (orders, deliveries, reports, webhook endpoints, API keys, imports,
 * the event feed) takes one and applies it through `withinLocations` (db/within-locations.ts). It is built in two places
 * only: `scopeOf(access)` for a caller (its credential's locations; every location for a
 * credential given no list), and `systemScope` for the service's own work on nobody's behalf
 * (the periodic jobs, the CLI on the server's machine). A bare list, `null` or an object made up
 * on the spot does not compile where a `Scope` is asked for.
 */
export type Scope = {
  readonly [scopeBrand]: true;
  /** The location ids, or `every` location. An empty list sees nothing. */
  readonly locations: readonly number[] | 'every';
};

const scope = (locations: readonly number[] | 'every'): Scope =>
  Object.freeze({ locations: locations === 'every' ? 'every' : Object.freeze([...locations]) }) as Scope;

/** The scope of a caller: the locations its credential holds now. */
export const scopeOf = (access: Pick<AccessContext, 'locations'>): Scope =>
  scope(access.locations === null ? 'every' : access.locations);

/** Every location, for the service's own work that acts for no caller (jobs, the CLI). */
export const systemScope: Scope = scope('every');

/** Whether the scope reaches this location. */
export const reaches = (within: Scope, locationId: number): boolean =>
  within.locations === 'every' || within.locations.includes(locationId);

/**
 * Whether a record that names a set of locations (NULL/null: every location) lies wholly inside
 * the scope: the rule for records that carry their owner's locations (API keys, imports, webhook
 * endpoints), as `withinLocations(scope, { allOf })` (db/within-locations.ts) says it in SQL.
 */
export const covers = (within: Scope, locations: readonly number[] | null): boolean =>
  within.locations === 'every' ||
  (locations !== null && locations.every((id) => (within.locations as readonly number[]).includes(id)));

/** The size of a scope for logs (never its list): `all` or the number of locations. */
export const scopeSize = (within: Scope): number | 'all' =>
  within.locations === 'every' ? 'all' : within.locations.length;
