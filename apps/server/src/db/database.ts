import { PrismaPg } from '@prisma/adapter-pg';
import type pg from 'pg';

import { PrismaClient } from '../generated/prisma/client.js';
import { createLogger, type Logger } from '../observability/logger.js';
import type { AppConfig } from '../startup/config.js';
import { type ChangeNotifications, listenForChanges, noChangeNotifications } from './change-notifications.js';
import { type ConnectionGate, createGatedPool } from './connection-gate.js';
import { createDatabaseAvailability, type DatabaseAvailability } from './database-availability.js';
import { SESSION_OPTIONS } from './session-options.js';
import { StatementReader } from './statement-reader.js';

export type { PrismaClient };

export interface Database {
  prisma: PrismaClient;
  /** The pool under `prisma`, for a library that runs its own SQL (the webhook job queue). */
  pool: pg.Pool;
  /** Single read statements on that pool without Prisma (statement-reader.ts). */
  reader: StatementReader;
  /** The queue of checkouts waiting for one of the pool's connections (connection-gate.ts). */
  gate: ConnectionGate;
  /** True when this process serves its own embedded PGlite database. */
  embedded: boolean;
  /** Migrations applied while opening (none when already up to date). */
  appliedMigrations: string[];
  /** Resolves when the database answers a query. */
  ping(): Promise<void>;
  /** Whether the database answers, as the last failures and probes tell; logs outages once each. */
  availability: DatabaseAvailability;
  /** What the triggers say changed (credentials, master data); nothing on the embedded database. */
  changes: ChangeNotifications;
  /** Runs `task` when the database closes, before its connections do (e.g. flushing pending writes). */
  beforeClose(task: () => Promise<void>): void;
  close(): Promise<void>;
}

interface OpenOptions {
  log?: (message: string) => void;
  /**
   * Told each start-up step as it ends, with how long it took (starting the embedded database,
   * migrating), for the person at the terminal (startProgress).
   */
  progress?: (step: string, ms: number) => void;
  /** Called with the SQL of every statement Prisma sends (diagnostics and query-count tests). */
  onQuery?: (sql: string) => void;
  /** Where database outages are reported (once per outage); none when absent. */
  logger?: Logger;
  /**
   * Apply pending migrations first (the default). A cluster worker does not: its primary
   * migrated before forking, so workers never race each other or load the schema engine.
   */
  migrate?: boolean;
}

/**
 * How much longer than the server's statement_timeout the client waits for an answer before it
 * gives the connection up: normally PostgreSQL's own cancellation (a clear SQLSTATE 57014)
 * arrives first; this only fires when nothing arrives at all (a hung network or server).
 */
const READ_TIMEOUT_MARGIN_MS = 250;

/**
 * Longest run of one interactive transaction (Prisma's `timeout`); each of its statements is
 * bounded by DATABASE_STATEMENT_TIMEOUT_MS and its locks by DATABASE_LOCK_TIMEOUT_MS.
 */
const TRANSACTION_TIMEOUT_MS = 30_000;

/**
 * Bounds on a PostgreSQL server's work, so that an unreachable, hung or overloaded database is
 * answered within about two seconds (503) instead of holding requests. The embedded database
 * runs inside this process and cannot be cut off or hang apart from it: it gets none of them.
 */
const serverTimeouts = ({ statementTimeoutMs, lockTimeoutMs }: AppConfig['database']) => ({
  statement_timeout: statementTimeoutMs,
  lock_timeout: lockTimeoutMs,
  query_timeout: statementTimeoutMs + READ_TIMEOUT_MARGIN_MS,
});

/** Pooled connections kept open when idle (pg-pool's `min`). */
const WARM_CONNECTIONS = 2;

/** Beyond this many distinct statement texts (dynamic SQL), statements go unnamed: unprepared. */
const MAX_NAMED_STATEMENTS = 500;
const statementNames = new Map<string, string>();
/**
 * Names each distinct statement text, so that pg parses and plans it once per connection and
 * then only binds and executes it: PostgreSQL's share of a create fell by about a quarter
 * (docs/performance.md). An empty name sends the statement unnamed, as before.
 */
const statementName = ({ sql }: { sql: string }): string => {
  let name = statementNames.get(sql);
  if (name === undefined) {
    if (statementNames.size >= MAX_NAMED_STATEMENTS) return '';
    name = `s${statementNames.size}`;
    statementNames.set(sql, name);
  }
  return name;
};

/**
 * Connects to `DATABASE_URL`, or starts the embedded database under `DATA_DIR` when it is
 * unset, applies pending migrations and returns a Prisma client over a pg pool.
 */
export const openDatabase = async (
  config: Pick<AppConfig, 'database'>,
  { log = () => {}, progress = () => {}, onQuery, logger = createLogger('silent'), migrate = true }: OpenOptions = {},
): Promise<Database> => {
  let stepStarted = performance.now();
  const stepEnded = (step: string) => {
    progress(step, performance.now() - stepStarted);
    stepStarted = performance.now();
  };
  // Imported on demand: a process on a PostgreSQL server never loads PGlite, and one that does
  // not migrate never loads the schema engine's WASM (both stay resident once loaded).
  const embedded = config.database.url
    ? undefined
    : await (await import('./embedded.js')).startEmbeddedPostgres(config.database.dataDir);
  if (embedded) stepEnded('started the embedded database');
  const url = config.database.url ?? embedded!.url;
  // The process that migrates a PostgreSQL server's database first makes sure it exists.
  if (!embedded && migrate) await (await import('./database-exists.js')).ensureDatabaseExists(url, log);
  try {
    const appliedMigrations = migrate ? await (await import('./migrate.js')).applyMigrations(url) : [];
    if (migrate) {
      stepEnded(
        appliedMigrations.length > 0
          ? `migrated the database (${appliedMigrations.length} migrations applied)`
          : 'checked the migrations (none pending)',
      );
    }
    if (appliedMigrations.length > 0) log(`applied migrations: ${appliedMigrations.join(', ')}`);
    const connections = embedded ? 1 : config.database.poolMax;
    const { pool, gate } = createGatedPool(
      {
        connectionString: url,
        options: SESSION_OPTIONS,
        max: connections,
        // Kept open when idle: the availability ping and the first requests after a quiet spell
        // find a connection instead of opening one, which on a loaded machine can take longer
        // than DATABASE_CONNECT_TIMEOUT_MS and read as an outage.
        min: Math.min(WARM_CONNECTIONS, connections),
        // The opening of a new connection: the wait for a free one is the gate's, up to the request's deadline.
        connectionTimeoutMillis: config.database.connectTimeoutMs,
        idleTimeoutMillis: 30_000,
        ...(embedded ? {} : serverTimeouts(config.database)),
      },
      { connections, requestDeadlineMs: config.database.requestDeadlineMs },
    );
    const ping = async () => {
      await pool.query('SELECT 1');
    };
    const availability = createDatabaseAvailability(logger, ping, {
      quietMs:
        config.database.connectTimeoutMs + Math.max(config.database.statementTimeoutMs, config.database.lockTimeoutMs),
    });
    // An idle client losing its server must not crash the process; the next query reconnects.
    // Losing idle connections is how a cut shows first: it starts the outage's one report.
    // Once closing, a connection the server ends (a database dropped as the test harness does, a
    // server shutting down) is the close itself, not an outage.
    let closing = false;
    pool.on('error', (error) => {
      if (!closing) availability.reportFailure(error);
    });
    const prisma = new PrismaClient({
      // Not on the embedded database: its clients share one session, where a name one client
      // prepared already exists for the next.
      adapter: new PrismaPg(pool, embedded ? {} : { statementNameGenerator: statementName }),
      log: onQuery ? [{ emit: 'event', level: 'query' }] : [],
      // Otherwise every query captures a stack trace (new Error()) for a code frame in error
      // messages: about 4 % of a create's CPU. Errors keep their codes and meta.
      errorFormat: 'minimal',
      // Waiting to start a transaction is waiting for a connection: the gate bounds it by the
      // request's deadline, then opening one by the connect timeout; this is only a backstop.
      transactionOptions: {
        maxWait: config.database.requestDeadlineMs + config.database.connectTimeoutMs,
        timeout: TRANSACTION_TIMEOUT_MS,
      },
    });
    if (onQuery) prisma.$on('query' as never, (event: { query: string }) => onQuery(event.query));
    const reader = new StatementReader(pool, {
      ...(embedded ? {} : { statementName: (text: string) => statementName({ sql: text }) }),
      ...(onQuery ? { onQuery } : {}),
    });
    // PGlite's socket server serves one connection at a time: a LISTEN connection would hold it.
    const changes = embedded
      ? noChangeNotifications()
      : listenForChanges(url, { connectTimeoutMs: config.database.connectTimeoutMs, logger });
    const closeTasks: (() => Promise<void>)[] = [];
    return {
      prisma,
      pool,
      reader,
      gate,
      embedded: embedded !== undefined,
      appliedMigrations,
      ping,
      availability,
      changes,
      beforeClose: (task) => {
        closeTasks.push(task);
      },
      close: async () => {
        closing = true;
        for (const task of closeTasks) await task();
        await changes.close();
        availability.stop();
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
