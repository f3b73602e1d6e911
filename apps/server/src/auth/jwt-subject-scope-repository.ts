import type { Db } from '../db/transactions.js';
import type { LocationList } from './access-context.js';

/** The statement about `jwt_subject_scopes` (jwt-subject-scopes.ts); webhook endpoints read it in SQL. */
export const jwtSubjectScopeRepository = {
  /** Records a subject's scope unless it is the one stored (then nothing is written). */
  record: async (db: Db, identity: string, locations: LocationList): Promise<void> => {
    await db.$executeRaw`
      -- location scope: none applies to the service's own record of a caller's scope
      INSERT INTO jwt_subject_scopes AS s (identity, locations, recorded_at)
      VALUES (${identity}, ${locations === null ? null : [...locations]}::int[], now())
      ON CONFLICT (identity) DO UPDATE SET locations = EXCLUDED.locations, recorded_at = now()
      WHERE s.locations IS DISTINCT FROM EXCLUDED.locations`;
  },
};
