import type { Prisma } from '../generated/prisma/client.js';

/**
 * What a store's raw statements need of the database: a client or an open transaction (Db in
 * transactions.ts), or a transaction on one pooled connection without Prisma
 * (TransactionPort.withSqlTransaction, StatementReader.transaction).
 *
 * The two read a row's values alike only for integers, text, booleans and json: Prisma maps a
 * numeric column to a Decimal, a bigint to a bigint and a date or timestamp to a Date, while pg
 * (its raw parsers, on the Prisma-less connection) gives text for the first two and parses a
 * date in the process's time zone. So the rows a store reads through SqlDb may not be typed
 * with those (`SqlRow`): its statements cast them (`::text`, `::int`, `to_jsonb`), and a row
 * type that names a Decimal, a bigint or a Date fails to compile.
 */
export interface SqlDb {
  $queryRaw<T extends readonly SqlRow<T[number]>[] = SqlRow<unknown>[]>(
    query: TemplateStringsArray | Prisma.Sql,
    ...values: unknown[]
  ): Promise<T>;
  $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<number>;
}

/** `Row` with every Decimal, bigint or Date in its fields (at any depth) turned into `never`. */
export type SqlRow<Row> = { [Key in keyof Row]: SqlValue<Row[Key]> };

type SqlValue<Value> = Value extends Prisma.Decimal | bigint | Date
  ? never
  : Value extends object
    ? { [Key in keyof Value]: SqlValue<Value[Key]> }
    : Value;
