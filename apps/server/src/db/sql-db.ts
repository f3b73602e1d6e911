import type { Prisma } from '../generated/prisma/client.js';

/**
 * What a store's raw statements need of the database: a client or an open transaction (Db in
 * transactions.ts), or a transaction on one pooled connection without Prisma
 * (TransactionPort.withSqlTransaction, StatementReader.transaction).
 */
export interface SqlDb {
  $queryRaw<T = unknown>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<T>;
  $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<number>;
}
