import { randomBytes } from 'node:crypto';

import request from 'supertest';
import { afterEach, describe, expect, inject, it } from 'vitest';

import { adminQuery, databaseUrl } from './support/postgres-server.js';
import { type ServerProcess, startServerProcess, stopServerProcess } from './support/server-process.js';

const SIGN_IN_LINE = /^ {4}sign in as the demo user \(or run pnpm order-entry\): (\S+)$/;
const DEMO_HEADER = /^ {4}Authorization: ApiKey (sok_[a-z2-7]{8}_[A-Za-z0-9_-]{43})$/;

describe('the demo API key printed at start-up', () => {
  let running: ServerProcess | undefined;
  afterEach(async () => {
    if (running) await stopServerProcess(running);
    running = undefined;
  });

  it('on the embedded database with demo data: prints a key that works', async () => {
    running = await startServerProcess({ SEED_DEMO_DATA: 'auto' });
    const header = running.output.map((line) => DEMO_HEADER.exec(line)).find(Boolean);
    expect(header, running.output.filter((line) => !line.startsWith('{')).join('\n')).toBeDefined();
    const key = header![1]!;
    expect(running.output.some((line) => line.includes(`curl -H "Authorization: ApiKey ${key}"`))).toBe(true);
    // The JSON log never holds it.
    expect(running.output.filter((line) => line.startsWith('{')).join('\n')).not.toContain(key);

    const response = await request(running.api).get('/sales-orders/1').set('Authorization', `ApiKey ${key}`);
    expect(response.status).toBe(200);
    expect(response.body.data.sales_order_id).toBe(1);
  });

  it('on the embedded database with demo data: prints the order entry page and a sign-in link that sets a working cookie', async () => {
    running = await startServerProcess({ SEED_DEMO_DATA: 'auto' });
    const origin = new URL(running.api).origin;
    expect(running.output).toContain(`  order entry page: ${origin}/order-entry/`);
    const link = running.output.map((line) => SIGN_IN_LINE.exec(line)).find(Boolean);
    expect(link, running.output.filter((line) => !line.startsWith('{')).join('\n')).toBeDefined();
    const url = new URL(link![1]!);
    expect(url.origin).toBe(origin);
    const token = url.searchParams.get('session')!;
    expect(running.output.filter((line) => line.startsWith('{')).join('\n')).not.toContain(token);

    const signIn = await request(origin).get(`${url.pathname}${url.search}`).expect(303);
    expect(signIn.headers.location).toBe('/order-entry/');
    const [cookie] = signIn.headers['set-cookie'] as unknown as string[];
    expect(cookie).toBe(`erp_session=${token}; Path=/; HttpOnly; SameSite=Lax`);
    const read = await request(running.api).get('/sales-orders/1').set('Cookie', `erp_session=${token}`);
    expect(read.status).toBe(200);
    await request(origin).get('/order-entry/').expect(200);
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'with DATABASE_URL, even with demo data: no key is made or printed (skipped without TEST_DATABASE_URL)',
    async () => {
      const serverUrl = process.env.TEST_DATABASE_URL!;
      const name = inject('templateDatabase')!.replace(/_template$/, `_${randomBytes(6).toString('hex')}`);
      await adminQuery(serverUrl, `CREATE DATABASE "${name}" TEMPLATE "${inject('templateDatabase')}"`);
      running = await startServerProcess({ DATABASE_URL: databaseUrl(serverUrl, name), SEED_DEMO_DATA: 'always' });
      expect(running.output.join('\n')).not.toMatch(/ApiKey|sok_/);
      // Neither a demo session nor the page: both are for the embedded database unless set.
      expect(running.output.join('\n')).not.toMatch(/order entry page|sign-in/);
      const [{ sessions }] = (await adminQuery(
        databaseUrl(serverUrl, name),
        'SELECT count(*)::text AS sessions FROM sessions',
      )) as [{ sessions: string }];
      expect(sessions).toBe('0');
      const [{ count }] = (await adminQuery(
        databaseUrl(serverUrl, name),
        'SELECT count(*)::text AS count FROM api_keys',
      )) as [{ count: string }];
      expect(count).toBe('0');
      // The demo data itself was loaded: the absence of a key is not a failed seed.
      const [{ orders }] = (await adminQuery(
        databaseUrl(serverUrl, name),
        'SELECT count(*)::text AS orders FROM sales_orders',
      )) as [{ orders: string }];
      expect(Number(orders)).toBeGreaterThan(0);
    },
  );
});
