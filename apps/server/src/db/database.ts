import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { AppConfig } from '../config.js';
import { PrismaClient } from '../generated/prisma/client.js';
import { startEmbeddedPostgres } from './embedded.js';
import { applyMigrations } from './migrate.js';

export type { PrismaClient };

export interface Database {
  prisma: PrismaClient;
  /** True when this process serves its own embedded PGlite database. */
  embedded: boolean;
  /** Migrations applied while opening (none when already up to date). */
  appliedMigrations: string[];
  /** Resolves when the database answers a query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

interface OpenOptions {
  log?: (message: string) => void;
  /** Builds the Prisma client over the pool's adapter; tests use it to observe queries. */
  createClient?: (adapter: PrismaPg) => PrismaClient;
}

/**
 * Connects to `DATABASE_URL`, or starts the embedded database under `DATA_DIR` when it is
 * unset, applies pending migrations and returns a Prisma client over a pg pool.
 */
export const openDatabase = async (
  config: Pick<AppConfig, 'database'>,
  { log = () => {}, createClient = (adapter) => new PrismaClient({ adapter }) }: OpenOptions = {},
): Promise<Database> => {
  const embedded = config.database.url ? undefined : await startEmbeddedPostgres(config.database.dataDir);
  const url = config.database.url ?? embedded!.url;
  try {
    const appliedMigrations = await applyMigrations(url);
    if (appliedMigrations.length > 0) log(`applied migrations: ${appliedMigrations.join(', ')}`);
    const pool = new pg.Pool({
      connectionString: url,
      max: embedded ? 1 : config.database.poolMax,
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
    });
    // An idle client losing its server must not crash the process; the next query reconnects.
    pool.on('error', (error) => log(`idle database connection failed: ${error.message}`));
    const prisma = createClient(new PrismaPg(pool));
    return {
      prisma,
      embedded: embedded !== undefined,
      appliedMigrations,
      ping: async () => {
        await pool.query('SELECT 1');
      },
      close: async () => {
        await prisma.$disconnect();
        await pool.end();
        await embedded?.stop();
      },
    };
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
};
