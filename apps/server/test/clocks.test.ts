import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { PGlite } from '@electric-sql/pglite';
import { Permission } from '@sales-order/contract';
import pg from 'pg';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';

import { openDatabase } from '../src/db/database.js';
import { loadConfig } from '../src/startup/config.js';
import { createApiKey } from './support/credentials.js';
import { orderBody } from './support/fixtures.js';
import { adminQuery, databaseUrl } from './support/postgres-server.js';
import { type ServerProcess, startServerProcess, stopServerProcess } from './support/server-process.js';
import { useServerWithFixtures } from './support/test-server.js';

/**
 * Host rows are written by the host with SQL, on a database whose default TimeZone is not UTC:
 * the service must still end sessions and keys at the instant the host meant, and stamp its own
 * rows with the true instant. `@prisma/adapter-pg` reads and writes timestamptz as UTC wall-clock
 * time, so a session in another zone would shift every instant by that zone's offset.
 */

const ZONES = ['Asia/Dhaka', 'America/Los_Angeles'] as const;

/** A host session row, written with SQL on the host's own connection; returns the cookie value. */
const insertHostSession = async (host: pg.Client, expiresIn: string, revoked = false): Promise<string> => {
  const token = randomBytes(24).toString('base64url');
  await host.query(
    `INSERT INTO sessions (token_hash, user_id, permissions, expires_at, revoked_at)
     VALUES ($1, 'erp-user-9', ARRAY['*'], now() + $2::interval, ${revoked ? "now() - interval '1 second'" : 'NULL'})`,
    [createHash('sha256').update(token).digest('hex'), expiresIn],
  );
  return token;
};

/** The spec's DateTime (`YYYY-MM-DD HH:mm:ss`, UTC) as milliseconds since the epoch. */
const utcDateTime = (text: string) => {
  expect(text).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  return Date.parse(`${text.replace(' ', 'T')}Z`);
};

describe.skipIf(!process.env.TEST_DATABASE_URL).each(ZONES)(
  'on a PostgreSQL database whose TimeZone is %s (needs TEST_DATABASE_URL)',
  (zone) => {
    const suite = useServerWithFixtures({}, { databaseTimeZone: zone });
    /** The host's own connection: it keeps the database's default zone, as the host's would. */
    let host: pg.Client;

    beforeAll(async () => {
      const [database] = await suite.server.database.prisma.$queryRaw<
        { name: string }[]
      >`SELECT current_database() AS name`;
      host = new pg.Client({ connectionString: databaseUrl(process.env.TEST_DATABASE_URL!, database!.name) });
      await host.connect();
    });
    afterAll(() => host?.end());

    /** A call with a session the host wrote: expiry (and revocation) relative to the database's clock. */
    const hostSession = async (expiresIn: string, revoked = false) => {
      const token = await insertHostSession(host, expiresIn, revoked);
      return request(suite.server.api)
        .post('/sales-orders/calculate-totals')
        .set('Cookie', `erp_session=${token}`)
        .set('Origin', suite.server.origin)
        .send({ details: [] });
    };

    const withKeyExpiring = async (expiresIn: string) => {
      const { key, summary } = await createApiKey(suite.server.database.prisma, [Permission.read]);
      await host.query(`UPDATE api_keys SET expires_at = now() + $1::interval WHERE prefix = $2`, [
        expiresIn,
        summary.prefix,
      ]);
      return request(suite.server.api)
        .post('/sales-orders/calculate-totals')
        .set('Authorization', `ApiKey ${key}`)
        .send({ details: [] });
    };

    it('the host connection runs in the zone; the service connections run in UTC', async () => {
      expect((await host.query('SHOW TimeZone')).rows[0].TimeZone).toBe(zone);
      const [service] = await suite.server.database.prisma.$queryRaw<
        { zone: string }[]
      >`SELECT current_setting('TimeZone') AS zone`;
      expect(service!.zone).toBe('UTC');
    });

    it('refuses a host session that expired a minute ago (or is revoked) and accepts one valid for another minute', async () => {
      const expired = await hostSession('-1 minute');
      expect(expired.status).toBe(401);
      expect(expired.body.error.details[0].code).toBe('invalid_session');
      const valid = await hostSession('1 minute');
      expect(valid.status).toBe(200);
      // Revoked by the host before it expires: refused, too.
      expect((await hostSession('1 hour', true)).status).toBe(401);
    });

    it('refuses an API key that expired a minute ago and accepts one valid for another minute', async () => {
      const expired = await withKeyExpiring('-1 minute');
      expect(expired.status).toBe(401);
      expect(expired.body.error.details[0].code).toBe('invalid_api_key');
      expect((await withKeyExpiring('1 minute')).status).toBe(200);
    });

    it('returns created_at and updated_at in UTC and stores the true instant', async () => {
      const before = Date.now();
      const created = await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures));
      expect(created.status).toBe(201);
      const id = created.body.data.sales_order_id;
      const updated = await suite.server.http
        .put(`/sales-orders/${id}`)
        .send(orderBody(suite.fixtures, { remarks: 'Changed' }));
      expect(updated.status).toBe(200);
      const after = Date.now();

      // The DateTime has whole seconds: allow the second the clock was read in.
      const within = (instant: number) => {
        expect(instant).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
        expect(instant).toBeLessThanOrEqual(after);
      };
      const read = await suite.server.http.get(`/sales-orders/${id}`);
      within(utcDateTime(read.body.data.created_at));
      within(utcDateTime(read.body.data.updated_at));
      expect(utcDateTime(read.body.data.updated_at)).toBeGreaterThanOrEqual(utcDateTime(read.body.data.created_at));

      // What the host reads in the database is the same instant, whatever its zone.
      const { rows } = await host.query(
        `SELECT extract(epoch FROM created_at) * 1000 AS created, extract(epoch FROM updated_at) * 1000 AS updated FROM sales_orders WHERE id = $1`,
        [id],
      );
      within(Number(rows[0].created));
      within(Number(rows[0].updated));
    });
  },
);

describe('the embedded database', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'sales-orders-clocks-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('runs in UTC even when its data directory says another zone', async () => {
    // A data directory configured for Asia/Dhaka (postgresql.auto.conf), as an operator's SQL could leave it.
    const pglite = await PGlite.create(path.join(dataDir, 'pgdata'));
    await pglite.exec(`ALTER SYSTEM SET timezone = 'Asia/Dhaka'`);
    await pglite.close();

    const database = await openDatabase(loadConfig({ DATA_DIR: dataDir }));
    try {
      const [setting] = await database.prisma.$queryRaw<{ zone: string }[]>`SELECT current_setting('TimeZone') AS zone`;
      expect(setting!.zone).toBe('UTC');
      // The database's clock reads back as the true instant.
      const [clock] = await database.prisma.$queryRaw<{ now: Date }[]>`SELECT now() AS now`;
      expect(Math.abs(clock!.now.getTime() - Date.now())).toBeLessThan(60_000);
    } finally {
      await database.close();
    }
  });
});

/**
 * The real service process with its own `TZ` east or west of UTC, on a database in the opposite
 * zone, and a business zone whose date differs from UTC's today: the demo data is dated in the
 * business zone, host sessions end on time, and timestamps are UTC.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL).each([
  { processZone: 'Asia/Dhaka', databaseZone: 'America/Los_Angeles' },
  { processZone: 'America/Los_Angeles', databaseZone: 'Asia/Dhaka' },
])(
  'the service process with TZ=$processZone on a database in $databaseZone (needs TEST_DATABASE_URL)',
  ({ processZone, databaseZone }) => {
    let running: ServerProcess | undefined;
    let host: pg.Client | undefined;
    afterEach(async () => {
      if (running) await stopServerProcess(running);
      await host?.end();
    });

    it('dates the demo data in BUSINESS_TIME_ZONE, ends host sessions on time and answers in UTC', async () => {
      const serverUrl = process.env.TEST_DATABASE_URL!;
      const template = inject('templateDatabase')!;
      const name = template.replace(/_template$/, `_${randomBytes(6).toString('hex')}`);
      await adminQuery(serverUrl, `CREATE DATABASE "${name}" TEMPLATE "${template}"`);
      await adminQuery(serverUrl, `ALTER DATABASE "${name}" SET timezone = '${databaseZone}'`);
      // +14 or -11 hours: at any moment one of them is on another date than UTC.
      const utcToday = new Date().toISOString().slice(0, 10);
      const business = [
        { zone: 'Pacific/Kiritimati', offsetHours: 14 },
        { zone: 'Pacific/Pago_Pago', offsetHours: -11 },
      ]
        .map((zone) => ({
          ...zone,
          today: new Date(Date.now() + zone.offsetHours * 3_600_000).toISOString().slice(0, 10),
        }))
        .find((zone) => zone.today !== utcToday)!;

      const started = Date.now();
      running = await startServerProcess({
        TZ: processZone,
        DATABASE_URL: databaseUrl(serverUrl, name),
        SEED_DEMO_DATA: 'always',
        BUSINESS_TIME_ZONE: business.zone,
      });
      host = new pg.Client({ connectionString: databaseUrl(serverUrl, name) });
      await host.connect();

      const { rows: dates } = await host.query(`SELECT DISTINCT sales_order_date::text AS date FROM sales_orders`);
      const businessToday = new Date(Date.now() + business.offsetHours * 3_600_000).toISOString().slice(0, 10);
      // The business day may have turned while the process started.
      expect([business.today, businessToday]).toContain(dates.map((row) => row.date).join());

      const expired = await insertHostSession(host, '-1 minute');
      const valid = await insertHostSession(host, '1 minute');
      expect((await request(running.api).get('/sales-orders/1').set('Cookie', `erp_session=${expired}`)).status).toBe(
        401,
      );
      const order = await request(running.api).get('/sales-orders/1').set('Cookie', `erp_session=${valid}`);
      expect(order.status).toBe(200);
      const createdAt = utcDateTime(order.body.data.created_at);
      expect(createdAt).toBeGreaterThanOrEqual(Math.floor(started / 1000) * 1000);
      expect(createdAt).toBeLessThanOrEqual(Date.now());
    });
  },
);
