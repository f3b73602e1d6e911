import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { gzipSync } from 'node:zlib';

import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { eventually } from './support/eventually.js';
import { type Fixtures, ORDER_DATE } from './support/fixtures.js';
import { type ServerProcess, startServerProcess, stopServerProcess } from './support/server-process.js';
import { createTestDatabase, useServerWithFixtures } from './support/test-server.js';
import { signJwt, TEST_JWT_SECRET } from './support/tokens.js';

/**
 * Uploads stream into the database in batches (imports/import-staging.ts): compressed files are
 * decoded as they come and stop at IMPORT_MAX_BYTES, a refused or broken upload leaves nothing
 * (not its import, not a staged row), and uploads past IMPORT_UPLOADS_CONCURRENT wait their turn
 * until the request deadline, then get 503 `overloaded`.
 */

const HEADER = 'order_ref,customer_id,location_id,sales_order_date,product_id,quantity,rate,remarks';

const csvOf = (f: Fixtures, refs: readonly string[], remarks = '') =>
  `${[
    HEADER,
    ...refs.map(
      (ref) =>
        `${ref},${f.customers.customer.id},${f.locations.dhaka.id},${ORDER_DATE},${f.products.otherProduct.id},2,10,${remarks}`,
    ),
  ].join('\n')}\n`;

const refs = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => `${prefix}-${index}`);

/** Sends `parts` as one request body, chunked (no Content-Length), waiting for `between` before each part after the first. */
const sendInParts = (
  origin: string,
  path: string,
  headers: Record<string, string>,
  parts: readonly Buffer[],
  between: () => Promise<void> = async () => {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: { error?: { details: { code: string }[] } } }> =>
  new Promise((resolve, reject) => {
    const outgoing = http.request(`${origin}${path}`, { method: 'POST', headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: JSON.parse(text || '{}') }),
      );
    });
    // A server that answers before the body ends may close the connection under it.
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    void (async () => {
      for (const [index, part] of parts.entries()) {
        if (index > 0) await between();
        if (outgoing.destroyed) return;
        outgoing.write(part);
      }
      outgoing.end();
    })();
  });

describe('import uploads stream in, and leave nothing when refused', () => {
  const suite = useServerWithFixtures({
    IMPORT_MAX_BYTES: String(1024 * 1024),
    IMPORT_MAX_ORDERS: '3000',
    IMPORT_UPLOADS_CONCURRENT: '1',
    REQUEST_DEADLINE_MS: '1500',
    BULK_ORDERS_PER_MINUTE: '1000000',
  });
  const origin = () => new URL(suite.server.api).origin;
  const apiPath = () => new URL(suite.server.api).pathname.replace(/\/$/, '');
  let token: string;
  beforeAll(async () => {
    token = await signJwt({ subject: 'uploader', payload: { permissions: ['*'] } });
  });
  const headers = (extra: Record<string, string> = {}) => ({
    Authorization: `Bearer ${token}`,
    'Content-Type': 'text/csv',
    ...extra,
  });
  const nothingStaged = async () => {
    const { prisma } = suite.server.database;
    expect(await prisma.import.count({ where: { state: 'uploading' } })).toBe(0);
    expect(
      await prisma.importFileRow.count({ where: { import: { state: { notIn: ['queued', 'running', 'completed'] } } } }),
    ).toBe(0);
  };
  const counts = async () => {
    const { prisma } = suite.server.database;
    return { imports: await prisma.import.count(), rows: await prisma.importFileRow.count() };
  };

  it('a gzip file is read as its CSV and makes its orders', async () => {
    const file = csvOf(suite.fixtures, refs('gz', 3));
    const response = await sendInParts(origin(), `${apiPath()}/imports`, headers({ 'Content-Encoding': 'gzip' }), [
      gzipSync(file),
    ]);
    expect(response.status).toBe(202);
    const id = (response.body as { data: { import_id: number; orders_total: number } }).data.import_id;
    expect((response.body as { data: { orders_total: number } }).data.orders_total).toBe(3);
    await eventually(
      async () =>
        (await request(suite.server.api).get(`/imports/${id}`).set('Authorization', `Bearer ${token}`)).body.data
          .orders_created === 3,
      30_000,
    );
  });

  it('a gzip bomb stops at IMPORT_MAX_BYTES once decoded (413), and nothing is kept', async () => {
    const before = await counts();
    // 64 MiB of one byte compresses to about 64 KiB.
    const bomb = gzipSync(Buffer.concat([Buffer.from(`${HEADER}\n`), Buffer.alloc(64 * 1024 * 1024, 0x61)]));
    const response = await sendInParts(origin(), `${apiPath()}/imports`, headers({ 'Content-Encoding': 'gzip' }), [
      bomb,
    ]);
    expect(response.status).toBe(413);
    expect(response.body.error?.details).toEqual([expect.objectContaining({ code: 'entity.too.large' })]);
    expect(await counts()).toEqual(before);
    await nothingStaged();
  });

  it('a chunked file past IMPORT_MAX_BYTES is 413 after rows were staged, and they go', async () => {
    const before = await counts();
    // About 2,000 rows of 300 bytes a part: more than a batch is written before the limit is met.
    const part = Buffer.from(csvOf(suite.fixtures, refs('big', 2000), 'r'.repeat(250)));
    const response = await sendInParts(origin(), `${apiPath()}/imports`, headers(), [part, part]);
    expect(response.status).toBe(413);
    expect(await counts()).toEqual(before);
    await nothingStaged();
  });

  it.each([
    [
      'a NUL byte after 2,500 good rows',
      (f: Fixtures) => `${csvOf(f, refs('nul', 2500))}tail,\u0000\n`,
      'import_not_readable',
    ],
    ['one order more than IMPORT_MAX_ORDERS', (f: Fixtures) => csvOf(f, refs('many', 3001)), 'import_too_many_orders'],
  ])('%s: refused (400) after batches were staged, and nothing is kept', async (_name, fileOf, code) => {
    const before = await counts();
    const response = await sendInParts(origin(), `${apiPath()}/imports`, headers(), [
      Buffer.from(fileOf(suite.fixtures)),
    ]);
    expect(response.status).toBe(400);
    expect(response.body.error?.details).toEqual([expect.objectContaining({ code })]);
    expect(await counts()).toEqual(before);
    await nothingStaged();
  });

  it('an upload past IMPORT_UPLOADS_CONCURRENT waits its turn until its deadline, then is 503 overloaded having written nothing; the next one after is taken', async () => {
    const file = Buffer.from(csvOf(suite.fixtures, refs('turn', 5)));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The first upload holds the only turn: its body stops half way until released.
    const first = sendInParts(
      origin(),
      `${apiPath()}/imports`,
      headers(),
      [file.subarray(0, 40), file.subarray(40)],
      () => released,
    );
    await eventually(
      async () => (await suite.server.database.prisma.import.count({ where: { state: 'uploading' } })) === 1,
      10_000,
    );
    const waited = Date.now();
    const second = await sendInParts(origin(), `${apiPath()}/imports`, headers(), [file]);
    expect(second.status).toBe(503);
    expect(second.headers['retry-after']).toMatch(/^[0-9]+$/);
    expect(second.body.error?.details).toEqual([expect.objectContaining({ code: 'overloaded' })]);
    // It waited for its turn (REQUEST_DEADLINE_MS is 1.5 s), not refused at once.
    expect(Date.now() - waited).toBeGreaterThanOrEqual(1_000);
    release();
    const taken = await first;
    expect(taken.status).toBe(202);
    const next = await sendInParts(origin(), `${apiPath()}/imports`, headers(), [file]);
    expect(next.status).toBe(202);
    // The refused upload wrote no import of its own, not even for a moment: ids are never handed
    // out twice, and the next one follows the first's.
    const idOf = (response: typeof next) => (response.body as { data: { import_id: number } }).data.import_id;
    expect(idOf(next)).toBe(idOf(taken) + 1);
    await nothingStaged();
  });
});

/** VmHWM (peak resident set) of a process, in MiB. */
const peakRssMiB = (pid: number): number => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmHWM:'))!;
  return Number(/([0-9]+)/.exec(line)![1]) / 1024;
};

describe.skipIf(
  !process.env.TEST_IMPORT_UPLOADS_UNDER_LOAD || !process.env.TEST_DATABASE_URL || process.platform !== 'linux',
)(
  'six 20 MiB uploads at once beside six busy processes (skipped without TEST_IMPORT_UPLOADS_UNDER_LOAD=1, TEST_DATABASE_URL and Linux /proc: it loads the machine on purpose, a step of its own in .ci/run)',
  () => {
    let testDatabase: Awaited<ReturnType<typeof createTestDatabase>>;
    let server: ServerProcess;
    const busy: ChildProcess[] = [];

    beforeAll(async () => {
      testDatabase = await createTestDatabase();
      server = await startServerProcess({
        ...testDatabase.env,
        JWT_SECRET: TEST_JWT_SECRET,
        RATE_LIMIT_PER_MINUTE: '100000',
        // IMPORT_UPLOADS_CONCURRENT, IMPORT_MAX_BYTES and REQUEST_DEADLINE_MS as the service ships them.
      });
    }, 120_000);
    afterAll(async () => {
      for (const child of busy) child.kill('SIGKILL');
      if (server) await stopServerProcess(server);
      await testDatabase?.drop();
    });

    it('all six are taken (202) and the server stays under 600 MiB', async () => {
      const token = await signJwt({ subject: 'bulk-uploader', payload: { permissions: ['*'] } });
      // 10,000 orders of five 400-byte rows: just under 20 MiB each, each file its own refs.
      const fileFor = (upload: number) => {
        const rows: string[] = [HEADER];
        const remarks = 'm'.repeat(380);
        for (let order = 0; order < 10_000; order += 1)
          for (let line = 0; line < 5; line += 1)
            rows.push(`u${upload}-${order},1,1,${ORDER_DATE},${line + 1},1,10,${remarks}`);
        return Buffer.from(`${rows.join('\n')}\n`);
      };
      const files = Array.from({ length: 6 }, (_, index) => fileFor(index));
      expect(files.every((file) => file.length > 19 * 1024 * 1024 && file.length <= 20 * 1024 * 1024)).toBe(true);
      const origin = new URL(server.api).origin;
      const path = `${new URL(server.api).pathname.replace(/\/$/, '')}/imports`;

      // A service that has been running holds its pool's connections open: opened here, before
      // the load, as they would be (a cold pool would open ten under six busy processes, each
      // within DATABASE_CONNECT_TIMEOUT_MS).
      await Promise.all(
        Array.from({ length: 30 }, () =>
          request(server.api).get('/sales-orders').set('Authorization', `Bearer ${token}`).expect(200),
        ),
      );
      for (let index = 0; index < 6; index += 1)
        busy.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
      const answers = await Promise.all(
        files.map((file) =>
          sendInParts(origin, path, { Authorization: `Bearer ${token}`, 'Content-Type': 'text/csv' }, [file]),
        ),
      );
      const peak = peakRssMiB(server.child.pid!);
      // What the service logged about a refused upload: the test's only clue to why.
      if (answers.some((answer) => answer.status !== 202))
        console.error(
          server.output
            .filter((line) => /"level":(40|50|60)/.test(line))
            .slice(-10)
            .join('\n'),
        );
      console.info(`six 20 MiB uploads beside six busy processes: server peak RSS ${peak.toFixed(0)} MiB`);

      expect(answers.map((answer) => [answer.status, answer.body.error?.details])).toEqual(
        answers.map(() => [202, undefined]),
      );
      expect(
        answers.map((answer) => (answer.body as unknown as { data: { orders_total: number } }).data.orders_total),
      ).toEqual([10_000, 10_000, 10_000, 10_000, 10_000, 10_000]);
      expect(peak).toBeLessThan(600);
      // The imports need not run here: each is cancelled (a queued one at once).
      await Promise.all(
        answers.map((answer) =>
          request(server.api)
            .post(`/imports/${(answer.body as unknown as { data: { import_id: number } }).data.import_id}/cancel`)
            .set('Authorization', `Bearer ${token}`),
        ),
      );
    }, 600_000);
  },
);
