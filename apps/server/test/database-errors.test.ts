import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { isDatabaseOverloaded } from '../src/db/connection-gate.js';
import type { PrismaClient } from '../src/db/database.js';
import { isContention, isDatabaseUnavailable, isLockNotAvailable, sqlStateOf } from '../src/db/database-errors.js';
import { startTestServer, type TestServer } from './support/test-server.js';

/** The error a piece of real database work rejects with. */
const failureOf = async (work: () => Promise<unknown>): Promise<unknown> => {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected the work to fail');
};

describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'which real database errors mean "unavailable" (503) and which are faults (500) (needs TEST_DATABASE_URL)',
  () => {
    let server: TestServer;
    let prisma: PrismaClient;

    beforeAll(async () => {
      server = await startTestServer({ REDIS_URL: '' });
      prisma = server.database.prisma;
    });
    afterAll(() => server?.close());

    it('counts a statement cancelled by statement_timeout, and a lock_timeout, as contention (the database answered), not unavailable, read from its SQLSTATE', async () => {
      const statementTimeout = await failureOf(() =>
        prisma.$transaction(async (tx) => {
          await tx.$executeRaw`SET LOCAL statement_timeout = 100`;
          await tx.$queryRaw`SELECT pg_sleep(2)`;
        }),
      );
      expect(isDatabaseUnavailable(statementTimeout)).toBe(false);
      expect(sqlStateOf(statementTimeout)).toBe('57014');
      expect(isContention(statementTimeout)).toBe(true);
      expect(isLockNotAvailable(statementTimeout)).toBe(false);

      // A model query (P2039) waiting on a lock another transaction holds.
      const lockTimeout = await failureOf(() =>
        prisma.$transaction(async (holder) => {
          await holder.$executeRaw`LOCK TABLE customers IN ACCESS EXCLUSIVE MODE`;
          await prisma.$transaction(async (tx) => {
            await tx.$executeRaw`SET LOCAL lock_timeout = 100`;
            await tx.customer.count();
          });
        }),
      );
      expect(lockTimeout).toMatchObject({ code: 'P2039' });
      expect(isDatabaseUnavailable(lockTimeout)).toBe(false);
      expect(isLockNotAvailable(lockTimeout)).toBe(true);
      // The SQLSTATE field decides, not a substring of the error's serialised metadata.
      expect(isLockNotAvailable({ meta: { message: 'waited for 55P03 things' } })).toBe(false);
    });

    it("counts a full pool's own wait for a free connection as a shed (overloaded), not an outage", async () => {
      const pool = new pg.Pool({
        connectionString: server.database.pool.options.connectionString,
        max: 1,
        connectionTimeoutMillis: 100,
      });
      const held = await pool.connect();
      try {
        const waited = await failureOf(() => pool.connect());
        expect((waited as Error).message).toBe('timeout exceeded when trying to connect');
        expect(isDatabaseOverloaded(waited)).toBe(true);
        expect(isDatabaseUnavailable(waited)).toBe(false);
      } finally {
        held.release();
        await pool.end();
      }
    });

    it('leaves genuine faults to the 500 path: bad SQL, failed arithmetic, a broken constraint, a misused client', async () => {
      const faults = [
        await failureOf(() => prisma.$queryRawUnsafe('SELEC 1')),
        await failureOf(() => prisma.$queryRaw`SELECT 1 / 0`),
        await failureOf(async () => {
          await prisma.customer.create({ data: { code: 'DUP', name: 'First' } });
          await prisma.customer.create({ data: { code: 'DUP', name: 'Second' } });
        }),
        // Prisma's own argument validation.
        await failureOf(() => prisma.customer.findUnique({ where: {} as never })),
        new TypeError("Cannot read properties of undefined (reading 'id')"),
      ];
      for (const fault of faults) expect(isDatabaseUnavailable(fault), String(fault)).toBe(false);
    });
  },
);
