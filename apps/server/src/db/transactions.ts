import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import { currentRequestDeadline, isDatabaseOverloaded } from './connection-gate.js';
import { isLockNotAvailable } from './database-errors.js';
import type { SqlDb, SqlRow } from './sql-db.js';
import { StatementReader } from './statement-reader.js';

/**
 * A client or an open transaction: a repository runs its statements in whichever the caller
 * holds. Use cases never see more of the database than this handle and the port below.
 */
export type Db = PrismaClient | Prisma.TransactionClient;

/**
 * Where a read statement can run: a client or an open transaction, or straight on the pool
 * (StatementReader, for single reads outside a transaction).
 */
export type Reader = SqlDb | StatementReader;

/** The rows of one read statement, wherever `reader` runs it (so typed as both read them alike: SqlRow). */
export const readRows = <Row extends Record<string, unknown> & SqlRow<Row>>(
  reader: Reader,
  query: Prisma.Sql,
): Promise<Row[]> => (reader instanceof StatementReader ? reader.rows<Row>(query) : reader.$queryRaw<Row[]>(query));

/** What a use case needs of the database: statements that are their own transaction, and transactions. */
export interface TransactionPort {
  /** For a single statement, which PostgreSQL runs as its own transaction (no BEGIN/COMMIT round trips). */
  readonly db: Db;
  /**
   * For a single read statement outside any transaction, straight on the pool where there is one
   * (the hot reads whose answer their statement renders), else the client; and for a create's
   * insert when it is its own transaction (its parameters are too large for Prisma's round trip
   * of them through JSON).
   */
  readonly reader: Reader;
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back when it throws. A
   * transaction ended by a lock wait is run again while its request's deadline allows.
   */
  withTransaction<T>(work: (tx: Db) => Promise<T>): Promise<T>;
  /**
   * As withTransaction, for a transaction of raw statements only: on one pooled connection
   * without Prisma where there is a pool (StatementReader.transaction), else as withTransaction.
   */
  withSqlTransaction<T>(work: (tx: SqlDb) => Promise<T>): Promise<T>;
  /**
   * Runs `attempt` (a single statement that is its own transaction) again while it fails on a
   * lock wait (lock_timeout, 55P03) and its request's deadline leaves room for another wait.
   */
  retryingLockWaits<T>(attempt: () => Promise<T>): Promise<T>;
  /**
   * Runs `work` inside the open transaction `tx` under a savepoint: when it throws, what it wrote
   * is undone and the transaction goes on (a failed statement no longer aborts all of it).
   */
  withSavepoint<T>(tx: Db, work: () => Promise<T>): Promise<T>;
}

const withSavepoint = async <T>(tx: Db, work: () => Promise<T>): Promise<T> => {
  // One name for every level: ROLLBACK TO and RELEASE take the innermost savepoint of that name.
  await tx.$executeRaw`SAVEPOINT work`;
  let result: T;
  try {
    result = await work();
  } catch (error) {
    await tx.$executeRaw`ROLLBACK TO SAVEPOINT work`;
    await tx.$executeRaw`RELEASE SAVEPOINT work`;
    throw error;
  }
  await tx.$executeRaw`RELEASE SAVEPOINT work`;
  return result;
};

/**
 * A wait for another request's lock that lock_timeout ended is contention, not a fault: what the
 * attempt wrote was rolled back whole, so it is run again, as long as the request that runs it
 * has at least one more lock wait (`lockTimeoutMs`) before its deadline. Past that, or outside a
 * request (jobs, the CLI, whose own retries apply), the error goes on: 503 `busy`.
 */
const retryingLockWaits = async <T>(attempt: () => Promise<T>, lockTimeoutMs: number): Promise<T> => {
  let lockWait: Error | undefined;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      // A retry that found no connection before the deadline still failed for the lock: `busy`.
      if (lockWait !== undefined && isDatabaseOverloaded(error)) throw lockWait;
      const deadline = currentRequestDeadline();
      if (!isLockNotAvailable(error) || deadline === undefined || deadline - Date.now() < lockTimeoutMs) throw error;
      lockWait = error as Error; // what isLockNotAvailable accepted is a driver error
    }
  }
};

/**
 * The port over a Prisma client (its interactive transactions, bounded as database.ts configures
 * them). `lockTimeoutMs` is DATABASE_LOCK_TIMEOUT_MS, the longest one lock wait.
 */
export const transactionPort = (
  prisma: PrismaClient,
  reader: Reader = prisma,
  { lockTimeoutMs }: { lockTimeoutMs: number } = { lockTimeoutMs: 1_000 },
): TransactionPort => ({
  db: prisma,
  reader,
  withTransaction: (work) => retryingLockWaits(() => prisma.$transaction((tx) => work(tx)), lockTimeoutMs),
  withSqlTransaction: (work) =>
    retryingLockWaits(
      () => (reader instanceof StatementReader ? reader.transaction(work) : prisma.$transaction((tx) => work(tx))),
      lockTimeoutMs,
    ),
  retryingLockWaits: (attempt) => retryingLockWaits(attempt, lockTimeoutMs),
  withSavepoint,
});
