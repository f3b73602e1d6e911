import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';

import { adminQuery, databaseUrl } from './support/postgres-server.js';
import { type ServerProcess, startServerProcess, stopServerProcess } from './support/server-process.js';

const SIGN_IN_LINE = /^ {4}sign in as the demo user \(or run pnpm order-entry\): (\S+)$/;
const DEMO_HEADER = /^ {4}Authorization: ApiKey (sok_[a-z2-7]{8}_[A-Za-z0-9_-]{43})$/;

// Each test starts the service (and seeds its demo data) once or twice: slow on a loaded machine.
describe('the demo API key printed at start-up', { timeout: 180_000 }, () => {
  let running: ServerProcess | undefined;
  afterEach(async () => {
    if (running) await stopServerProcess(running);
    running = undefined;
  });

  const printedKey = (running: ServerProcess) => {
    const header = running.errors.map((line) => DEMO_HEADER.exec(line)).find(Boolean);
    expect(header, running.errors.join('\n')).toBeDefined();
    const key = header![1]!;
    expect(running.errors.some((line) => line.includes(`curl -H "Authorization: ApiKey ${key}"`))).toBe(true);
    // Standard output holds only the JSON log lines, and they never hold the key.
    expect(running.output.every((line) => line.startsWith('{'))).toBe(true);
    expect(running.output.join('\n')).not.toContain(key);
    return key;
  };

  // One start for both: what it printed, and what it serves, are read, nothing is changed.
  describe('on the embedded database with demo data', () => {
    let embedded: ServerProcess;
    beforeAll(async () => {
      embedded = await startServerProcess({
        SEED_DEMO_DATA: 'auto',
        // The embedded database has one connection: on a loaded machine a request may wait for it
        // longer than the service's 1 s default (a 503 here was the load, not the key).
        DATABASE_CONNECT_TIMEOUT_MS: '10000',
        DATABASE_STATEMENT_TIMEOUT_MS: '30000',
      });
    }, 300_000);
    afterAll(() => (embedded ? stopServerProcess(embedded) : undefined));

    it('prints a key that works, on stderr, after a line per start-up step with its time', async () => {
      const key = printedKey(embedded);
      const response = await request(embedded.api).get('/sales-orders/1').set('Authorization', `ApiKey ${key}`);
      expect(response.status).toBe(200);
      expect(response.body.data.sales_order_id).toBe(1);
      // So that a first start is never silent: each step says it is done, and how long it took.
      const steps = embedded.errors.filter((line) => / in \d+\.\d s$/.test(line));
      expect(
        steps.map((line) => line.replace(/ in \d+\.\d s$/, '').replace(/\(\d+ migrations/, '(N migrations')),
      ).toEqual([
        'started the embedded database',
        'migrated the database (N migrations applied)',
        'loaded the demo data',
      ]);
      expect(embedded.errors.indexOf(steps.at(-1)!)).toBeLessThan(
        embedded.errors.findIndex((line) => line.startsWith('Sales order service on ')),
      );
    });

    it('prints the order entry page and a sign-in link that sets a working cookie', async () => {
      const running = embedded;
      const origin = new URL(running.api).origin;
      expect(running.errors).toContain(`  order entry page: ${origin}/order-entry/`);
      const link = running.errors.map((line) => SIGN_IN_LINE.exec(line)).find(Boolean);
      expect(link, running.errors.join('\n')).toBeDefined();
      const url = new URL(link![1]!);
      expect(url.origin).toBe(origin);
      const token = url.searchParams.get('session')!;
      expect(running.output.join('\n')).not.toContain(token);

      const signIn = await request(origin).get(`${url.pathname}${url.search}`).expect(303);
      expect(signIn.headers.location).toBe('/order-entry/');
      const [cookie] = signIn.headers['set-cookie'] as unknown as string[];
      expect(cookie).toBe(`erp_session=${token}; Path=/; HttpOnly; SameSite=Lax`);
      const read = await request(running.api).get('/sales-orders/1').set('Cookie', `erp_session=${token}`);
      expect(read.status).toBe(200);
      await request(origin).get('/order-entry/').expect(200);
    });
  });

  describe.skipIf(!process.env.TEST_DATABASE_URL)('on a PostgreSQL server (skipped without TEST_DATABASE_URL)', () => {
    const serverUrl = process.env.TEST_DATABASE_URL!;
    const newDatabase = async () => {
      const name = inject('templateDatabase')!.replace(/_template$/, `_${randomBytes(6).toString('hex')}`);
      await adminQuery(serverUrl, `CREATE DATABASE "${name}" TEMPLATE "${inject('templateDatabase')}"`);
      return databaseUrl(serverUrl, name);
    };
    const apiKeyCount = async (url: string) =>
      Number(((await adminQuery(url, 'SELECT count(*)::text AS count FROM api_keys')) as [{ count: string }])[0].count);

    it('an empty database with SEED_DEMO_DATA=always: demo data and a printed key, printed again at the next start', async () => {
      const url = await newDatabase();
      const parent = await mkdtemp(path.join(tmpdir(), 'demo-key-'));
      // DATA_DIR as on a fresh clone: nothing has made it yet (CI's bench met this).
      const dataDir = path.join(parent, 'data');
      try {
        // The embedded database's key, as an earlier `pnpm start` without DATABASE_URL left it.
        await mkdir(dataDir, { recursive: true });
        await writeFile(path.join(dataDir, 'demo-api-key'), 'sok_embedded_key_of_another_database\n');
        running = await startServerProcess({ DATABASE_URL: url, SEED_DEMO_DATA: 'always', DATA_DIR: dataDir });
        const key = printedKey(running);
        // A file of this database's own, beside the embedded one's, which is left as it was.
        const keyFile = path.join(dataDir, `demo-api-key.127.0.0.1-5432-${new URL(url).pathname.slice(1)}`);
        expect((await readFile(keyFile, 'utf8')).trim()).toBe(key);
        expect(await readFile(path.join(dataDir, 'demo-api-key'), 'utf8')).toBe(
          'sok_embedded_key_of_another_database\n',
        );
        expect(running.errors).toContain(`made a new demo API key, kept in ${keyFile}`);
        const response = await request(running.api).get('/sales-orders/1').set('Authorization', `ApiKey ${key}`);
        expect(response.status).toBe(200);
        await stopServerProcess(running);

        running = await startServerProcess({ DATABASE_URL: url, SEED_DEMO_DATA: 'always', DATA_DIR: dataDir });
        expect(printedKey(running)).toBe(key);
        expect(running.errors.filter((line) => line.startsWith('made a new demo API key'))).toEqual([]);
        expect(await apiKeyCount(url)).toBe(1);
        // Neither a demo session nor the page: both are for the embedded database unless set.
        expect(running.errors.join('\n')).not.toMatch(/order entry page|sign in/);
        const [{ sessions }] = (await adminQuery(url, 'SELECT count(*)::text AS sessions FROM sessions')) as [
          { sessions: string },
        ];
        expect(sessions).toBe('0');
      } finally {
        await rm(parent, { recursive: true, force: true });
      }
    });

    it('a database with data of its own: no key is made or printed, even with SEED_DEMO_DATA=always', async () => {
      const url = await newDatabase();
      await adminQuery(url, "INSERT INTO customers (code, name) VALUES ('C-1', 'A customer of the host')");
      const dataDir = await mkdtemp(path.join(tmpdir(), 'demo-key-'));
      try {
        running = await startServerProcess({ DATABASE_URL: url, SEED_DEMO_DATA: 'always', DATA_DIR: dataDir });
        expect([...running.output, ...running.errors].join('\n')).not.toMatch(/ApiKey|sok_/);
        expect(await apiKeyCount(url)).toBe(0);
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    });
  });
});
