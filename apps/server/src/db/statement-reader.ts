import pg from 'pg';
import Cursor from 'pg-cursor';

import { Prisma } from '../generated/prisma/client.js';
import type { SqlDb } from './sql-db.js';

/**
 * Single read statements sent straight to the pool's connections, without Prisma's work around
 * each query (its request pipeline and the mapping of the result: about 100 µs of CPU a call,
 * as much again as pg itself; docs/decisions/reads-in-one-statement.md). For the
 * reads whose answer is the JSON text their statement renders (GET order, the list page), where
 * the rows need no mapping; and a create's one insert statement when it is its own transaction,
 * whose ~100 KB of json parameters for 500 lines Prisma would serialise into JSON and parse back.
 * The same pool as Prisma's adapter, so the same connection gate, session settings and
 * timeouts, and the same statement names (each text prepared once per connection); each
 * statement is its own transaction, except in `transaction`. Failures are pg's own errors, which
 * database-errors.ts reads like Prisma's.
 */
export class StatementReader {
  constructor(
    private readonly pool: pg.Pool,
    private readonly options: StatementOptions = {},
  ) {}

  async rows<Row extends pg.QueryResultRow>(query: Prisma.Sql): Promise<Row[]> {
    return (await runStatement<Row>(this.pool, query, this.options)).rows;
  }

  /**
   * Runs `work` in one transaction (BEGIN ... COMMIT) on one pooled connection, its statements
   * sent as `rows` sends them: a write of raw statements without Prisma's interactive
   * transaction, which costs about 100 µs of CPU a statement and as much again for its BEGIN
   * and COMMIT. The checkout passes the connection gate as Prisma's does (the request's
   * deadline), and each statement has the pool's timeouts. Rolled back when `work` throws; a
   * connection a statement lost (no answer from the server: a timeout, a broken socket) is
   * closed instead of reused.
   */
  async transaction<T>(work: (tx: SqlDb) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    const tx = new ConnectionTransaction(client, this.options);
    try {
      await tx.command('BEGIN');
      const result = await work(tx);
      await tx.command('COMMIT');
      client.release();
      return result;
    } catch (error) {
      if (!tx.lost) await tx.command('ROLLBACK').catch((failed: Error) => (tx.lost ??= failed));
      client.release(tx.lost);
      throw error;
    }
  }

  /**
   * A long read (a report over every matching order or line): on one pooled connection, in a
   * read-only transaction whose statement may run `timeoutMs` instead of the pool's short
   * DATABASE_STATEMENT_TIMEOUT_MS, the client waiting as long (plus the same margin).
   */
  async longRows<Row extends pg.QueryResultRow>(query: Prisma.Sql, timeoutMs: number): Promise<Row[]> {
    const { text } = query;
    return this.inLongRead(timeoutMs, async (client) => {
      // `query_timeout` per query is read by pg's Client (lib/client.js) though its types lack it.
      const config = { text, values: query.values, query_timeout: timeoutMs + TIMEOUT_MARGIN_MS } as pg.QueryConfig;
      const result = await client.query<Row>(config);
      this.options.onQuery?.(text);
      return result.rows;
    });
  }

  /**
   * The rows of a long read in batches of `size`, from a cursor (pg-cursor: the statement runs
   * once, its rows come `size` at a time), holding the connection until the last batch is read
   * or the caller stops: an answer streamed without the whole result in memory.
   */
  async *longBatches<Row extends pg.QueryResultRow>(
    query: Prisma.Sql,
    timeoutMs: number,
    size: number,
  ): AsyncGenerator<Row[], void, undefined> {
    const client = await this.pool.connect();
    let state: 'open' | 'committed' | Error = 'open';
    try {
      await client.query(beginLongRead(timeoutMs));
      const cursor = client.query(new Cursor<Row>(query.text, query.values));
      this.options.onQuery?.(query.text);
      try {
        for (;;) {
          const rows = await cursor.read(size);
          if (rows.length === 0) break;
          yield rows;
        }
      } finally {
        await cursor.close();
      }
      await client.query('COMMIT');
      state = 'committed';
    } catch (error) {
      state = error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      // A reader that stopped early leaves the transaction open: rolled back before the
      // connection goes back; a failed one is not reused.
      if (state === 'open') await client.query('ROLLBACK').catch((error: unknown) => (state = error as Error));
      client.release(state instanceof Error ? state : undefined);
    }
  }

  private async inLongRead<T>(timeoutMs: number, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query(beginLongRead(timeoutMs));
      const result = await work(client);
      await client.query('COMMIT');
      client.release();
      return result;
    } catch (error) {
      // A failed statement leaves the transaction aborted: the connection is not reused.
      client.release(error instanceof Error ? error : true);
      throw error;
    }
  }
}

interface StatementOptions {
  /** The prepared statement's name for a text; none (unnamed) on the embedded database. */
  statementName?: (text: string) => string;
  /** Called with the SQL of every statement, as Prisma's query event is. */
  onQuery?: (sql: string) => void;
}

/** One statement on `db` (the pool, or a connection), named as Prisma's adapter names it. */
const runStatement = async <Row extends pg.QueryResultRow>(
  db: pg.Pool | pg.PoolClient,
  query: Prisma.Sql,
  { statementName, onQuery }: StatementOptions,
): Promise<pg.QueryResult<Row>> => {
  // Prisma.Sql joins its text again at every `text` access: a read statement's 2 KB, once here.
  const { text } = query;
  const name = statementName?.(text) || undefined;
  const result = await db.query<Row>({ name, text, values: query.values });
  onQuery?.(text);
  return result;
};

/**
 * The statements of StatementReader.transaction on its connection, with Prisma's raw-statement
 * methods (a Prisma.Sql, or a tagged template), so that stores run them as in a Prisma
 * transaction. Rows come as pg reads them, as Prisma's for integers, text and json; a numeric,
 * bigint or date column would not, which SqlDb's row types (SqlRow) refuse to name.
 */
class ConnectionTransaction implements SqlDb {
  /** The error of a statement the server did not answer: the connection is in doubt. */
  lost: Error | undefined;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly options: StatementOptions,
  ) {}

  async $queryRaw<T = unknown>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<T> {
    return (await this.run(query, values)).rows as T;
  }

  async $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<number> {
    return (await this.run(query, values)).rowCount ?? 0;
  }

  /** The transaction's own commands, unnamed and unparameterised. */
  async command(text: 'BEGIN' | 'COMMIT' | 'ROLLBACK'): Promise<void> {
    await this.watched(this.client.query(text));
  }

  private run(query: TemplateStringsArray | Prisma.Sql, values: unknown[]) {
    const sql = query instanceof Prisma.Sql ? query : Prisma.sql(query, ...values);
    return this.watched(runStatement(this.client, sql, this.options));
  }

  private async watched<R>(statement: Promise<R>): Promise<R> {
    try {
      return await statement;
    } catch (error) {
      // The server's own refusal (a SQLSTATE) leaves the connection fit for the ROLLBACK.
      if (!(error instanceof pg.DatabaseError)) this.lost = error instanceof Error ? error : new Error(String(error));
      throw error;
    }
  }
}

/**
 * A long read's transaction and its statement timeout, in one round trip (a simple query of two
 * statements; SET takes no parameters: the value is an integer of the configuration).
 */
const beginLongRead = (timeoutMs: number) => `BEGIN READ ONLY; SET LOCAL statement_timeout = ${Math.trunc(timeoutMs)}`;

/** How much longer than a long read's statement timeout the client waits (as db/database.ts for the pool's). */
const TIMEOUT_MARGIN_MS = 250;
