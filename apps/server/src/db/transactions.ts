import type { Prisma, PrismaClient } from '../generated/prisma/client.js';

/**
 * A client or an open transaction: a repository runs its statements in whichever the caller
 * holds. Use cases never see more of the database than this handle and the port below.
 */
export type Db = PrismaClient | Prisma.TransactionClient;

/** What a use case needs of the database: statements that are their own transaction, and transactions. */
export interface TransactionPort {
  /** For a single statement, which PostgreSQL runs as its own transaction (no BEGIN/COMMIT round trips). */
  readonly db: Db;
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  withTransaction<T>(work: (tx: Db) => Promise<T>): Promise<T>;
}

/** The port over a Prisma client (its interactive transactions, bounded as database.ts configures them). */
export const transactionPort = (prisma: PrismaClient): TransactionPort => ({
  db: prisma,
  withTransaction: (work) => prisma.$transaction((tx) => work(tx)),
});
