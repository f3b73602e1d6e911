import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type Database, openDatabase } from '../src/db/database.js';
import { loadConfig } from '../src/startup/config.js';
import { eventually } from './support/eventually.js';
import { createFixtures, type Fixtures, orderBody } from './support/fixtures.js';
import { type ServerProcess, startServerProcess, stopServerProcess } from './support/server-process.js';
import { createTestDatabase } from './support/test-server.js';
import { signJwt, TEST_JWT_SECRET } from './support/tokens.js';

/**
 * Server numbering under load, as it runs in production: two server processes on one
 * PostgreSQL database. A create is one statement, its own transaction, that takes its
 * series' counter (docs/decisions/create-in-one-statement.md): the numbers of committed orders must be exactly 1..N,
 * and the counter row locked by that statement only.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'server numbering across processes and the counter lock (skipped without TEST_DATABASE_URL)',
  () => {
    let testDatabase: Awaited<ReturnType<typeof createTestDatabase>>;
    let database: Database;
    let fixtures: Fixtures;
    let token: string;
    let sql: pg.Client;
    const running: ServerProcess[] = [];

    const post = (server: ServerProcess, body: object) =>
      request(server.api).post('/sales-orders').set('Authorization', `Bearer ${token}`).send(body);
    const counterOf = async (locationId: number) => {
      const { rows } = await sql.query<{ last_sequence: string }>(
        'SELECT last_sequence::text FROM sales_order_counters WHERE location_id = $1',
        [locationId],
      );
      return rows.map((row) => Number(row.last_sequence));
    };
    const sequenceOf = (orderNumber: string) => Number(/-(\d+)$/.exec(orderNumber)![1]);
    const marker = async (code: string) => database.prisma.product.create({ data: { code, name: `marker ${code}` } });
    /**
     * Pauses a create with a line of `productId` inside its statement: a row trigger `name` on
     * sales_order_details (BEFORE: as that line is written; AFTER: at the statement's end) waits
     * for an advisory lock this test holds until `release`. `waiting` resolves with the paused
     * backend's pid once it waits for the lock; `remove` releases it if need be and drops the trigger.
     */
    const pauseLinesOf = async (name: string, productId: number, timing: 'BEFORE' | 'AFTER', lockKey: number) => {
      await sql.query(`
        CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.product_id = ${productId} THEN PERFORM pg_advisory_xact_lock(${lockKey}); END IF;
          RETURN NEW;
        END $$`);
      await sql.query(
        `CREATE TRIGGER ${name} ${timing} INSERT ON sales_order_details FOR EACH ROW EXECUTE FUNCTION ${name}()`,
      );
      await sql.query('SELECT pg_advisory_lock($1)', [lockKey]);
      let held = true;
      const release = async () => {
        if (held) await sql.query('SELECT pg_advisory_unlock($1)', [lockKey]);
        held = false;
      };
      return {
        // Deterministic: polls pg_locks until the create's backend waits for the lock.
        waiting: async (): Promise<number> => {
          let pid: number | undefined;
          await eventually(async () => {
            const { rows } = await sql.query<{ pid: number }>(
              `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted`,
              [lockKey],
            );
            pid = rows.length === 1 ? rows[0]!.pid : undefined;
            return pid !== undefined;
          }, 20_000);
          return pid!;
        },
        release,
        remove: async () => {
          await release();
          await sql.query(`DROP TRIGGER ${name} ON sales_order_details`);
        },
      };
    };

    beforeAll(async () => {
      testDatabase = await createTestDatabase();
      database = await openDatabase(
        loadConfig({ DATABASE_URL: testDatabase.env.DATABASE_URL!, DATABASE_POOL_MAX: '2' }),
      );
      fixtures = await createFixtures(database.prisma);
      token = await signJwt({ payload: { permissions: ['*'] }, expiresIn: '1h' });
      sql = new pg.Client({ connectionString: testDatabase.env.DATABASE_URL });
      await sql.connect();
      const start = () =>
        startServerProcess({
          ...testDatabase.env,
          JWT_SECRET: TEST_JWT_SECRET,
          RATE_LIMIT_PER_MINUTE: '100000',
          // 60 creates queue for pooled connections and on one counter row, on a loaded
          // machine: wait as long as needed (test-server.ts's bounds), never answer 503.
          DATABASE_CONNECT_TIMEOUT_MS: '10000',
          DATABASE_LOCK_TIMEOUT_MS: '10000',
          DATABASE_STATEMENT_TIMEOUT_MS: '30000',
        });
      running.push(...(await Promise.all([start(), start()])));
    }, 120_000);

    afterAll(async () => {
      await Promise.all(running.map(stopServerProcess));
      await sql?.end();
      await database?.close();
      await testDatabase?.drop();
    });

    it('numbers 60 concurrent creates through two processes exactly 1..N, rolled-back creates giving theirs back', async () => {
      const [a, b] = running as [ServerProcess, ServerProcess];
      const { chattogram } = fixtures.locations;
      const refused = await marker('REFUSED');
      // As a host DBA could: refuse a line of the marker product, in an AFTER row trigger, which
      // runs at the statement's end: the create's statement has moved the counter by then (the
      // order is numbered from it) and fails whole.
      await sql.query(`
        CREATE FUNCTION test_refuse_marker() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.product_id = ${refused.id} THEN RAISE EXCEPTION 'refused by the host'; END IF;
          RETURN NEW;
        END $$`);
      await sql.query(
        'CREATE TRIGGER test_refuse_marker AFTER INSERT ON sales_order_details FOR EACH ROW EXECUTE FUNCTION test_refuse_marker()',
      );
      try {
        const responses = await Promise.all(
          Array.from({ length: 60 }, (_, index) =>
            post(
              index % 2 === 0 ? a : b,
              orderBody(fixtures, {
                location_id: chattogram.id,
                remarks: `concurrent ${index}`,
                // Every fifth create fails after taking a number, and must give it back.
                details:
                  index % 5 === 4
                    ? [{ product_id: refused.id, quantity: 1, rate: 1 }]
                    : [{ product_id: fixtures.products.otherProduct.id, quantity: index + 1, rate: 2 }],
              }),
            ),
          ),
        );
        const failed = responses.filter((response) => response.status !== 201);
        expect(failed.map((response) => response.status)).toEqual(Array.from({ length: 12 }, () => 500));
        const numbers = responses
          .filter((response) => response.status === 201)
          .map((response) => response.body.data.order_number as string);
        expect(numbers.every((number) => number.startsWith('CTG-2026-'))).toBe(true);
        expect(numbers.map(sequenceOf).sort((x, y) => x - y)).toEqual(Array.from({ length: 48 }, (_, i) => i + 1));
        // What is stored agrees: 48 orders numbered 1..48, the counter at 48.
        const { rows } = await sql.query<{ seq: string; sales_order_no: string }>(
          'SELECT sequence::text AS seq, sales_order_no FROM sales_orders WHERE location_id = $1 ORDER BY sequence',
          [chattogram.id],
        );
        expect(rows.map((row) => Number(row.seq))).toEqual(Array.from({ length: 48 }, (_, i) => i + 1));
        expect(rows.map((row) => row.sales_order_no)).toEqual(
          Array.from({ length: 48 }, (_, i) => `CTG-2026-${String(i + 1).padStart(5, '0')}`),
        );
        expect(await counterOf(chattogram.id)).toEqual([48]);
      } finally {
        await sql.query('DROP TRIGGER test_refuse_marker ON sales_order_details');
      }
    }, 60_000);

    it("locks the counter row within the create's one statement, which is its whole transaction", async () => {
      const [a, b] = running as [ServerProcess, ServerProcess];
      const { dhaka } = fixtures.locations;
      // The series' counter row exists and stands at 1.
      expect((await post(a, orderBody(fixtures)).expect(201)).body.data.order_number).toBe('DHK-2026-00001');

      // A create with a line of the paused product waits, inside its statement and after its
      // counter moved (an AFTER row trigger runs at the statement's end), for an advisory lock
      // this test holds.
      const paused = await marker('PAUSED');
      const pause = await pauseLinesOf('test_pause_marker', paused.id, 'AFTER', 770_001);
      try {
        const pausedCreate = post(
          a,
          orderBody(fixtures, { details: [{ product_id: paused.id, quantity: 1, rate: 1 }] }),
        ).then((response) => response);
        const pid = await pause.waiting();

        // The statement it is paused in is the create's insert (and, the query-shape test
        // shows, no BEGIN came before it: the statement is the transaction). Its lines come
        // first in its text; pg_stat_activity keeps the text's first 1,024 bytes only.
        const { rows: activity } = await sql.query<{ query: string }>(
          'SELECT query FROM pg_stat_activity WHERE pid = $1',
          [pid],
        );
        // The statement opens with its comments (the location scope it applies), then the insert.
        expect(activity[0]!.query).toMatch(/^\s*(?:--[^\n]*\n\s*)*WITH input AS MATERIALIZED/);
        expect(activity[0]!.query).toMatch(/INSERT INTO "?sales_order_details"? /);
        // The counter row is locked by that statement ...
        await sql.query('BEGIN');
        try {
          await expect(
            sql.query('SELECT 1 FROM sales_order_counters WHERE location_id = $1 FOR UPDATE NOWAIT', [dhaka.id]),
          ).rejects.toThrow(/could not obtain lock/);
        } finally {
          await sql.query('ROLLBACK');
        }
        // ... so a create in the same series, through the other process, waits for it.
        const meanwhile = post(b, orderBody(fixtures))
          .timeout(20_000)
          .then((response) => response);

        await pause.release();
        const resumed = await pausedCreate;
        expect(resumed.status).toBe(201);
        expect(resumed.body.data.order_number).toBe('DHK-2026-00002');
        expect((await meanwhile).body.data.order_number).toBe('DHK-2026-00003');
        expect(await counterOf(dhaka.id)).toEqual([3]);
      } finally {
        await pause.remove();
      }
    }, 60_000);

    it('writes the lines before it locks the counter row: a create paused on its lines holds no number', async () => {
      const [a, b] = running as [ServerProcess, ServerProcess];
      const { dhaka } = fixtures.locations;
      // The series' counter row exists (whichever tests ran before), so that its lock means something.
      await post(a, orderBody(fixtures)).expect(201);
      const [counter] = await counterOf(dhaka.id);
      const number = (sequence: number) => `DHK-2026-${String(sequence).padStart(5, '0')}`;

      // A BEFORE row trigger runs as each line is written: the create waits there, in its
      // statement, for an advisory lock this test holds.
      const held = await marker('HELD');
      const pause = await pauseLinesOf('test_hold_marker', held.id, 'BEFORE', 770_002);
      try {
        const heldCreate = post(
          a,
          orderBody(fixtures, { details: [{ product_id: held.id, quantity: 1, rate: 1 }] }),
        ).then((response) => response);
        await pause.waiting();
        // The counter row is free while the lines are written ...
        await sql.query('BEGIN');
        try {
          await sql.query('SELECT 1 FROM sales_order_counters WHERE location_id = $1 FOR UPDATE NOWAIT', [dhaka.id]);
        } finally {
          await sql.query('ROLLBACK');
        }
        // ... so a create in the same series goes by, and takes the next number.
        expect((await post(b, orderBody(fixtures)).timeout(20_000).expect(201)).body.data.order_number).toBe(
          number(counter! + 1),
        );

        await pause.release();
        const resumed = await heldCreate;
        expect(resumed.status).toBe(201);
        expect(resumed.body.data.order_number).toBe(number(counter! + 2));
        expect(await counterOf(dhaka.id)).toEqual([counter! + 2]);
      } finally {
        await pause.remove();
      }
    }, 60_000);
  },
);
