import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';

import { openSchemaEngine, readMigrationList } from './schema-engine.js';
import { UTC_SESSION_OPTIONS } from './time-zone.js';

/**
 * Applies every migration under prisma/migrations that the database has not seen, recording
 * them in `_prisma_migrations` exactly as `prisma migrate deploy` does. Idempotent, and safe
 * when several instances start at once (the engine takes an advisory lock).
 */
export const applyMigrations = async (
  connectionString: string,
  log: (message: string) => void = () => {},
): Promise<string[]> => {
  // Our own pool, ended here: the embedded database accepts a single connection, which the
  // application's pool needs next.
  const pool = new pg.Pool({ connectionString, max: 1, options: UTC_SESSION_OPTIONS });
  try {
    const engine = await openSchemaEngine(new PrismaPg(pool), log);
    try {
      const { appliedMigrationNames } = await engine.applyMigrations({
        migrationsList: await readMigrationList(),
        filters: { externalTables: [], externalEnums: [] },
      });
      return appliedMigrationNames;
    } finally {
      engine.free();
    }
  } finally {
    await pool.end();
  }
};
