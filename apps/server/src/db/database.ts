import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { AppConfig } from '../config.js';
import { PrismaClient } from '../generated/prisma/client.js';
import { startEmbeddedPostgres } from './embedded.js';
import { applyMigrations } from './migrate.js';
import { UTC_SESSION_OPTIONS } from './time-zone.js';

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
  /** Called with the SQL of every statement Prisma sends (diagnostics and query-count tests). */
  onQuery?: (sql: string) => void;
}

/**
 * Connects to `DATABASE_URL`, or starts the embedded database under `DATA_DIR` when it is
 * unset, applies pending migrations and returns a Prisma client over a pg pool.
 */
export const openDatabase = async (
  config: Pick<AppConfig, 'database'>,
  { log = () => {}, onQuery }: OpenOptions = {},
): Promise<Database> => {
  const embedded = config.database.url ? undefined : await startEmbeddedPostgres(config.database.dataDir);
  const url = config.database.url ?? embedded!.url;
  try {
    const appliedMigrations = await applyMigrations(url);
    if (appliedMigrations.length > 0) log(`applied migrations: ${appliedMigrations.join(', ')}`);
    const pool = new pg.Pool({
      connectionString: url,
      options: UTC_SESSION_OPTIONS,
      max: embedded ? 1 : config.database.poolMax,
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
    });
    // An idle client losing its server must not crash the process; the next query reconnects.
    pool.on('error', (error) => log(`idle database connection failed: ${error.message}`));
    const prisma = new PrismaClient({
      adapter: new PrismaPg(pool),
      log: onQuery ? [{ emit: 'event', level: 'query' }] : [],
    });
    if (onQuery) prisma.$on('query' as never, (event: { query: string }) => onQuery(event.query));
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
