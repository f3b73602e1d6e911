import { createHash, randomBytes } from 'node:crypto';

import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { type Database, openDatabase } from '../src/db/database.js';
import { loadConfig } from '../src/startup/config.js';
import { eventually } from './support/eventually.js';
import { createFixtures, type Fixtures, ORDER_DATE, orderBody } from './support/fixtures.js';
import { createLicensedProduct } from './support/licences.js';
import { type ServerProcess, startServerProcess, stopServerProcess } from './support/server-process.js';
import { createTestDatabase } from './support/test-server.js';
import { signJwt, TEST_JWT_SECRET } from './support/tokens.js';

/**
 * Prisma 7's client engine compiles a query plan, on the event loop, for each model query
 * shape it has not seen; it caches plans by shape, but never those of createMany /
 * createManyAndReturn. Its debug logger (namespace `prisma:client:clientEngine`, enabled by
 * the DEBUG environment variable, read when @prisma/client/runtime/client.js loads; written
 * with console.warn, so to stderr) says "query plan cache miss" (or "batch query plan cache
 * miss") before each compilation. Raw statements are never compiled and log nothing.
 *
 * The real service runs in its own process with that logger on; every operation is called
 * once to warm up, then again with different values (ids, quantities, line counts, charges or
 * none), which must not compile anything.
 */
const MISS = /query plan cache miss/;

describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'query-plan compilations after warm-up (skipped without TEST_DATABASE_URL)',
  () => {
    let testDatabase: Awaited<ReturnType<typeof createTestDatabase>>;
    let database: Database;
    let fixtures: Fixtures;
    let server: ServerProcess;
    let token: string;
    let licensedProductIds: number[];
    const stderr: string[] = [];

    const api = () => ({
      get: (path: string) => request(server.api).get(path).set('Authorization', `Bearer ${token}`),
      post: (path: string, body: object) =>
        request(server.api).post(path).set('Authorization', `Bearer ${token}`).send(body),
      put: (path: string, body: object) =>
        request(server.api).put(path).set('Authorization', `Bearer ${token}`).send(body),
      delete: (path: string) => request(server.api).delete(path).set('Authorization', `Bearer ${token}`),
    });

    const lines = (count: number, quantity: number) =>
      Array.from({ length: count }, (_, index) => ({
        product_id: index % 2 === 0 ? fixtures.products.product.id : fixtures.products.otherProduct.id,
        ...(index % 2 === 0 ? { packsize_id: fixtures.packsizes.packsize.id } : {}),
        quantity: quantity + index,
        rate: 12.3456,
      }));
    const create = async (lineCount: number, quantity: number, withCharges: boolean) =>
      (
        await api()
          .post(
            '/sales-orders',
            orderBody(fixtures, {
              details: lines(lineCount, quantity),
              other_charges: withCharges ? [{ description: 'Carriage', amount: quantity * 1.5 }] : [],
            }),
          )
          .expect(201)
      ).body.data.sales_order_id as number;

    /** One call of each operation; `round` varies every value the call sends. */
    const operations: Record<string, (round: number) => Promise<unknown>> = {
      'POST calculate-totals': (round) =>
        api()
          .post('/sales-orders/calculate-totals', {
            details: lines(round === 0 ? 2 : 7, round + 1),
            other_charges: [{ amount: round * 3 }],
          })
          .expect(200),
      'POST validate-licence': (round) =>
        api()
          .post('/sales-orders/validate-licence', {
            sales_order_date: ORDER_DATE,
            sales_order_details: licensedProductIds
              .slice(0, round === 0 ? 1 : 3)
              .map((productId, index) => ({ product_id: productId, quantity: round * 10 + index + 1 })),
          })
          .expect(200),
      'GET max-number': (round) =>
        api()
          .get(
            `/sales-orders/max-number?year_id=${fixtures.years.currentYear.id}&location_id=${
              round === 0 ? fixtures.locations.dhaka.id : fixtures.locations.chattogram.id
            }`,
          )
          .expect(200),
      'GET dropdown-options': (round) =>
        api()
          .get(`/sales-orders/dropdown-options/customers`)
          .query(round === 0 ? {} : { selected_id: fixtures.customers.inactiveCustomer.id + round })
          .expect(200),
      'GET list': (round) =>
        api()
          .get(`/sales-orders?limit=${round === 0 ? 10 : 3}&customer_id=${fixtures.customers.customer.id}`)
          .expect(200),
      'POST create (1, 5 and 50 lines, with and without charges)': async (round) => {
        if (round === 0) return create(2, 1, true);
        await create(1, 3, false);
        await create(5, 7, true);
        await create(50, 11, false);
      },
      'GET order': async (round) =>
        api()
          .get(`/sales-orders/${await create(round === 0 ? 2 : 6, 2, true)}`)
          .expect(200),
      'GET history': async (round) =>
        api()
          .get(`/sales-orders/${await create(round === 0 ? 2 : 4, 3, false)}/history`)
          .expect(200),
      'PUT update (lines, charges, header only)': async (round) => {
        const id = await create(2, 4, true);
        if (round === 0)
          return api()
            .put(`/sales-orders/${id}`, { details: lines(2, 5) })
            .expect(200);
        await api()
          .put(`/sales-orders/${id}`, { details: lines(5, 9), other_charges: [{ description: 'Fee', amount: 2.5 }] })
          .expect(200);
        await api()
          .put(`/sales-orders/${id}`, { remarks: `round ${round}`, other_charges: [] })
          .expect(200);
        await api()
          .put(`/sales-orders/${id}`, { details: lines(50, 1) })
          .expect(200);
      },
      'DELETE order': async (round) =>
        api()
          .delete(`/sales-orders/${await create(3 + round, 6, round > 0)}`)
          .expect(200),
    };
    beforeAll(async () => {
      testDatabase = await createTestDatabase();
      database = await openDatabase(
        loadConfig({ DATABASE_URL: testDatabase.env.DATABASE_URL!, DATABASE_POOL_MAX: '2' }),
      );
      fixtures = await createFixtures(database.prisma);
      licensedProductIds = await Promise.all(
        [1, 2, 3].map(
          async () =>
            (
              await createLicensedProduct(database.prisma, {
                licences: [{ validFrom: '2026-01-01', validTo: '2027-12-31', quantity: '1000.000' }],
              })
            ).id,
        ),
      );
      token = await signJwt({ payload: { permissions: ['*'] }, expiresIn: '1h' });
      server = await startServerProcess(
        {
          ...testDatabase.env,
          JWT_SECRET: TEST_JWT_SECRET,
          RATE_LIMIT_PER_MINUTE: '100000',
          DEBUG: 'prisma:client:clientEngine',
        },
        (line) => stderr.push(line),
      );
      // Warm-up: every operation once, one after the other, and the marker's request.
      for (const operation of Object.values(operations)) await operation(0);
      await marker();
    }, 120_000);

    afterAll(async () => {
      if (server) await stopServerProcess(server);
      await database?.close();
      await testDatabase?.drop();
    });

    /**
     * The index in `stderr` of a line written by a request made now: a host session cookie no
     * one holds, whose lookup (a raw statement: never compiled) the logger prints with its plan,
     * arguments included: the token's SHA-256. The process's stderr is one pipe: every line
     * written before it is in by then.
     */
    const marker = async () => {
      const token = randomBytes(24).toString('base64url');
      const digest = createHash('sha256').update(token).digest('hex');
      await request(server.api).get('/sales-orders').set('Cookie', `erp_session=${token}`).expect(401);
      await eventually(async () => stderr.some((line) => line.includes(digest)), 30_000);
      return stderr.findIndex((line) => line.includes(digest));
    };

    /** The compilations logged while `action` runs, between a marker before it and one after. */
    const compilationsDuring = async (action: () => Promise<unknown>) => {
      const from = await marker();
      await action();
      const to = await marker();
      return stderr.slice(from, to).filter((line) => MISS.test(line)).length;
    };

    it('the service logs through prisma:client:clientEngine: DEBUG is honoured in its process', () => {
      // Logged before every query, raw or not (and before a compilation's "cache miss").
      expect(stderr.some((line) => line.startsWith('prisma:client:clientEngine sending request'))).toBe(true);
    });

    it('a compilation logs "query plan cache miss" and a cached plan does not (same runtime, this process)', async () => {
      const global = globalThis as { DEBUG?: string };
      const previous = global.DEBUG;
      const warnings: string[] = [];
      const spy = vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => {
        warnings.push(args.map(String).join(' '));
      });
      global.DEBUG = 'prisma:client:clientEngine';
      try {
        // A shape this process has not sent before, then the same shape with another value.
        await database.prisma.port.findFirst({ where: { code: 'never-1', active: false }, select: { name: true } });
        const first = warnings.filter((line) => MISS.test(line)).length;
        await database.prisma.port.findFirst({ where: { code: 'never-2', active: false }, select: { name: true } });
        expect(first).toBe(1);
        expect(warnings.filter((line) => MISS.test(line)).length).toBe(1);
        expect(warnings.some((line) => /query plan cache hit/.test(line))).toBe(true);
      } finally {
        global.DEBUG = previous;
        spy.mockRestore();
      }
    });

    for (const [name, operation] of Object.entries(operations)) {
      it(`${name}: no compilation after warm-up`, async () => {
        expect(await compilationsDuring(() => operation(1))).toBe(0);
        expect(await compilationsDuring(() => operation(2))).toBe(0);
      });
    }
  },
);
