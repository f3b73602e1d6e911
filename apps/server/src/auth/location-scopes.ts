import type { Db } from '../db/transactions.js';
import { locationRepository } from './location-repository.js';

/**
 * Where a caller's location scope comes from (docs/authentication.md, "Location scope"): an API
 * key's `locations` (ids), a JWT's `locations` claim and a host session's `locations` column
 * (codes or ids, as the issuer or the host writes them). Each names locations by code or by id;
 * this turns such a list into ids.
 */

/** One entry of a list: a location id (a number, or digits) or a code. */
export type LocationReference = string | number;

/** An id when the entry is a positive integer or its digits; otherwise a code. */
const idOf = (entry: LocationReference): number | undefined => {
  if (typeof entry === 'number') return Number.isSafeInteger(entry) && entry > 0 ? entry : undefined;
  return /^[1-9]\d{0,9}$/.test(entry) ? Number(entry) : undefined;
};

export type ResolvedLocations = {
  /** The ids of the entries that name a location, each once, in ascending order. */
  ids: number[];
  /** The entries that name no location, as given. */
  unknown: LocationReference[];
};

/** The location id each entry names, in the entries' order; undefined for an entry that names none. */
export const resolveEach = async (db: Db, entries: readonly LocationReference[]): Promise<(number | undefined)[]> => {
  if (entries.length === 0) return [];
  const ids = entries.map(idOf).filter((id): id is number => id !== undefined);
  const codes = entries.filter((entry): entry is string => typeof entry === 'string' && idOf(entry) === undefined);
  const found = await locationRepository.findByCodesOrIds(db, codes, ids);
  const byId = new Set(found.map((location) => location.id));
  const byCode = new Map(found.map((location) => [location.code.toUpperCase(), location.id]));
  return entries.map((entry) => {
    const id = idOf(entry);
    return id !== undefined ? (byId.has(id) ? id : undefined) : byCode.get(String(entry).toUpperCase());
  });
};

/** The ids a list of codes and ids names, and the entries that name none. */
export const resolveLocations = async (db: Db, entries: readonly LocationReference[]): Promise<ResolvedLocations> => {
  const matches = await resolveEach(db, entries);
  const resolved = new Set<number>();
  const unknown: LocationReference[] = [];
  matches.forEach((match, index) => {
    if (match === undefined) unknown.push(entries[index]!);
    else resolved.add(match);
  });
  return { ids: [...resolved].sort((a, b) => a - b), unknown };
};
