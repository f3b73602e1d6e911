import type pg from 'pg';

import type { Prisma } from '../generated/prisma/client.js';

/**
 * Single read statements sent straight to the pool's connections, without Prisma's work around
 * each query (its request pipeline and the mapping of the result: about 100 µs of CPU a call,
 * as much again as pg itself; docs/decisions/reads-in-one-statement.md). For the
 * reads whose answer is the JSON text their statement renders (GET order, the list page), where
 * the rows need no mapping; and a create's one insert statement when it is its own transaction,
 * whose ~100 KB of json parameters for 500 lines Prisma would serialise into JSON and parse back.
 * The same pool as Prisma's adapter, so the same connection gate, session settings and
 * timeouts, and the same statement names (each text prepared once per connection); each
 * statement is its own transaction. Failures are pg's own errors, which
 * database-errors.ts reads like Prisma's.
 */
export class StatementReader {
  constructor(
    private readonly pool: pg.Pool,
    private readonly options: {
      /** The prepared statement's name for a text; none (unnamed) on the embedded database. */
      statementName?: (text: string) => string;
      /** Called with the SQL of every statement, as Prisma's query event is. */
      onQuery?: (sql: string) => void;
    } = {},
  ) {}

  async rows<Row extends pg.QueryResultRow>(query: Prisma.Sql): Promise<Row[]> {
    const { statementName, onQuery } = this.options;
    // Prisma.Sql joins its text again at every `text` access: a read statement's 2 KB, once here.
    const { text } = query;
    const name = statementName?.(text) || undefined;
    const result = await this.pool.query<Row>({ name, text, values: query.values });
    onQuery?.(text);
    return result.rows;
  }
}
