import type { Db } from '../db/transactions.js';

/** The one statement location scope needs of master data. */
export const locationRepository = {
  /** The locations named by these codes (case-insensitive) or ids: each one's id and code. */
  findByCodesOrIds: (db: Db, codes: string[], ids: number[]): Promise<{ id: number; code: string }[]> =>
    db.$queryRaw<{ id: number; code: string }[]>`
      SELECT id, code FROM locations
      WHERE upper(code) = ANY(${codes.map((code) => code.toUpperCase())}::text[]) OR id = ANY(${ids}::int[])`,
};
