import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { databaseUrl } from './support/postgres-server.js';
import { useServerWithFixtures } from './support/test-server.js';

/**
 * The service's pooled sessions run without JIT compilation, whatever the server or the database
 * says (src/db/session-options.ts): PostgreSQL compiled the outbox relay's statement on every
 * run, about 100 ms of its CPU for a few ms of work. The database here is set, as a DBA might,
 * to compile every statement (`jit_above_cost = 0`); a host session on it compiles, the
 * service's do not.
 */

/** Whether an EXPLAIN (ANALYZE, FORMAT JSON) says the statement was JIT-compiled. */
const compiled = (plan: unknown): boolean => JSON.stringify(plan).includes('"JIT"');

/** A statement with expressions over many rows: compiled whenever JIT is on and its cost passes the bar. */
const EXPLAINED = 'EXPLAIN (ANALYZE, FORMAT JSON) SELECT sum(n * 2) FROM generate_series(1, 1000) AS n';

describe.skipIf(!process.env.TEST_DATABASE_URL)('database sessions (needs TEST_DATABASE_URL)', () => {
  const suite = useServerWithFixtures();
  let host: pg.Client;
  let jitAvailable = false;

  beforeAll(async () => {
    const [database] = await suite.server.database.prisma.$queryRaw<
      { name: string }[]
    >`SELECT current_database() AS name`;
    const url = databaseUrl(process.env.TEST_DATABASE_URL!, database!.name);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`ALTER DATABASE "${database!.name}" SET jit = on`);
      await admin.query(`ALTER DATABASE "${database!.name}" SET jit_above_cost = 0`);
    } finally {
      await admin.end();
    }
    // A session opened after the change: the host's, with the database's settings.
    host = new pg.Client({ connectionString: url });
    await host.connect();
    jitAvailable = (await host.query<{ available: boolean }>('SELECT pg_jit_available() AS available')).rows[0]!
      .available;
  });
  afterAll(() => host?.end());

  it('a host session on the database compiles the statement (the premise)', async (context) => {
    // A server built without LLVM cannot show the difference: nothing is compiled anywhere.
    if (!jitAvailable) context.skip();
    const { rows } = await host.query<{ 'QUERY PLAN': unknown }>(EXPLAINED);
    expect(compiled(rows[0]!['QUERY PLAN'])).toBe(true);
  });

  it("the service's pooled sessions do not, and say jit is off", async () => {
    const { prisma } = suite.server.database;
    // Several at once, so that more than one pooled connection answers (new ones included).
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        prisma.$transaction(async (tx) => {
          const [setting] = await tx.$queryRaw<{ jit: string }[]>`SELECT current_setting('jit') AS jit`;
          const plan = await tx.$queryRawUnsafe<{ 'QUERY PLAN': unknown }[]>(EXPLAINED);
          return { jit: setting!.jit, compiled: compiled(plan[0]!['QUERY PLAN']) };
        }),
      ),
    );
    expect(answers).toEqual(Array.from({ length: 4 }, () => ({ jit: 'off', compiled: false })));
  });
});
