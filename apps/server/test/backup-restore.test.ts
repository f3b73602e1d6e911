import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';

import { examplesOf } from './support/doc-examples.js';
import { eventually } from './support/eventually.js';
import { createFixtures, orderBody } from './support/fixtures.js';
import { adminQuery, databaseUrl } from './support/postgres-server.js';
import { startServerProcess, stopServerProcess } from './support/server-process.js';
import { createTestDatabase, startTestServer, type TestServer } from './support/test-server.js';

/**
 * docs/deployment.md's "Backup and restore" as an operator follows it: the page's own shell
 * blocks (those it marks as run here), run with sh against databases and services of this test.
 */
const serverUrl = process.env.TEST_DATABASE_URL;
const blocks = examplesOf('docs/deployment.md', ['sh']).filter((block) =>
  block.skip?.startsWith('test/backup-restore.test.ts'),
);
const [pgBackup, pgRestore, embeddedBackup, embeddedRestore] = blocks.map((block) => block.code);

const folder = mkdtempSync(path.join(tmpdir(), 'backup-restore-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Runs a page's block with `sh -e` in `cwd`, with `env` beside PATH. */
const shell = (script: string, cwd: string, env: Record<string, string>) =>
  new Promise<string>((resolve, reject) => {
    execFile(
      'sh',
      ['-ec', script],
      { cwd, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 120_000 },
      (error, stdout, stderr) => (error ? reject(new Error(`${script}\n${stderr}`)) : resolve(stdout)),
    );
  });

it('finds the four blocks of the page this test runs', () => {
  expect(blocks).toHaveLength(4);
  expect(pgBackup).toContain('pg_dump');
  expect(pgRestore).toContain('pg_restore');
  expect(embeddedBackup).toContain('cp -a data');
  expect(embeddedRestore).toContain('"$BACKUP_DIR" data');
});

describe.skipIf(!serverUrl)('PostgreSQL: pg_dump, pg_restore and the feed moved past the lost stretch', () => {
  const restoredName = `so_test_restored_${process.pid}_${Date.now()}`;
  const servers: TestServer[] = [];
  let drop = async () => {};
  afterAll(async () => {
    for (const server of servers) await server.close();
    await drop();
    await adminQuery(serverUrl!, `DROP DATABASE IF EXISTS "${restoredName}" WITH (FORCE)`);
  });

  /** The cursor after every event the server has positioned so far, once `count` are. */
  const feedEnd = async (server: TestServer, after: string | undefined, count: number) => {
    let cursor = '';
    await eventually(async () => {
      const page = (
        await server.http
          .get('/events')
          .query(after ? { after } : {})
          .expect(200)
      ).body.data;
      cursor = page.next_cursor as string;
      return page.items.length >= count;
    }, 30_000);
    return cursor;
  };

  it(
    'restores the orders as they were, without what came after, and new events reach readers of the lost ones',
    { timeout: 300_000 },
    async () => {
      const database = await createTestDatabase();
      drop = () => database.drop();
      const original = await startTestServer(database.env);
      servers.push(original);
      const fixtures = await createFixtures(original.database.prisma);
      const create = async (server: TestServer, ref: string) =>
        (
          await server.http
            .post('/sales-orders')
            .send(orderBody(fixtures, { customer_reference: ref }))
            .expect(201)
        ).body.data.sales_order_id as number;

      const kept = await create(original, 'kept');
      const keptRead = (await original.http.get(`/sales-orders/${kept}`).expect(200)).text;
      const beforeBackup = await feedEnd(original, undefined, 1);

      const work = mkdtempSync(path.join(folder, 'pg-'));
      const printed = await shell(pgBackup!, work, { DATABASE_URL: database.env.DATABASE_URL! });
      const [dump] = readdirSync(work).filter((name) => name.endsWith('.dump'));
      expect(printed).toBe(`backup readable: ${dump}\n`);

      // Written after the backup: lost by the restore. A reader took the cursor after it.
      const lost = await create(original, 'lost');
      const lostCursor = await feedEnd(original, beforeBackup, 1);

      const { hostname, port, username } = new URL(serverUrl!);
      await shell(pgRestore!.replaceAll('sales_order_restored', restoredName), work, {
        BACKUP: dump!,
        PGHOST: hostname,
        PGPORT: port || '5432',
        PGUSER: decodeURIComponent(username),
      });

      const restored = await startTestServer({ DATABASE_URL: databaseUrl(serverUrl!, restoredName) });
      servers.push(restored);
      expect((await restored.http.get(`/sales-orders/${kept}`).expect(200)).text).toBe(keptRead);
      await restored.http.get(`/sales-orders/${lost}`).expect(404);
      await request(restored.origin).get('/readyz').expect(200);

      // The new order may take the lost one's id; its event comes after the lost event's cursor.
      const next = await create(restored, 'after the restore');
      let found: { sales_order_id: number; data: { customer_reference: string } }[] = [];
      await eventually(async () => {
        found = (await restored.http.get('/events').query({ after: lostCursor }).expect(200)).body.data.items;
        return found.length > 0;
      }, 30_000);
      expect(found.map((event) => [event.sales_order_id, event.data.customer_reference])).toEqual([
        [next, 'after the restore'],
      ]);
    },
  );
});

describe('the embedded database: a copy of ./data taken with the service stopped', () => {
  it('restores the data as it was when copied', { timeout: 600_000 }, async () => {
    const work = mkdtempSync(path.join(folder, 'embedded-'));
    const env = { DATA_DIR: path.join(work, 'data'), SEED_DEMO_DATA: 'always' };
    await stopServerProcess(await startServerProcess(env));

    await shell(embeddedBackup!, work, {});
    const [copy] = readdirSync(work).filter((name) => name.startsWith('data-backup-'));
    expect(copy).toBeDefined();

    // An order made after the copy, then the copy put back.
    const later = await startServerProcess(env);
    const key = readFileSync(path.join(work, 'data', 'demo-api-key'), 'utf8').trim();
    const api = () => request(later.api);
    const created = await api()
      .post('/sales-orders')
      .set('Authorization', `ApiKey ${key}`)
      .send({
        customer_id: 12,
        location_id: 1,
        sales_order_date: new Date().toISOString().slice(0, 10),
        details: [{ product_id: 6, quantity: 1, rate: 1260 }],
      })
      .expect(201);
    const id = created.body.data.sales_order_id as number;
    await stopServerProcess(later);
    await shell(embeddedRestore!, work, { BACKUP_DIR: copy! });

    const back = await startServerProcess(env);
    try {
      const read = (path: string) => request(back.api).get(path).set('Authorization', `ApiKey ${key}`);
      await read(`/sales-orders/${id}`).expect(404);
      expect((await read('/sales-orders/1').expect(200)).body.data.sales_order_no).toMatch(/^DHK-\d{4}-\d{5}$/);
    } finally {
      await stopServerProcess(back);
    }
  });
});
