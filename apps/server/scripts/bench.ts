/**
 * `pnpm bench`: load figures for the main routes, side by side with a baseline measured in the
 * same run (GET /healthz: the HTTP stack without authentication or database), so the numbers
 * say what each route costs on this machine rather than in general.
 *
 * Starts the built service (dist/main.js) as its own process on loopback, on a fresh embedded
 * database with demo data, or on BENCH_DATABASE_URL (a PostgreSQL server's maintenance
 * database: a throwaway database is created and dropped there). Every scenario is bounded in
 * time; traffic goes to 127.0.0.1 only.
 *
 * With BENCH_DATABASE_URL, BENCH_LIST_ORDERS orders (default 200,000) are bulk-loaded in SQL
 * before the list scenarios, so that GET /sales-orders is measured on a production-sized table
 * (the embedded database is the service's own process and is not loaded; its list figures are
 * for the demo data only).
 *
 *   pnpm bench                       # 5 s per scenario, 16 connections
 *   BENCH_SECONDS=10 BENCH_CONNECTIONS=32 pnpm bench
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { SignJWT } from 'jose';
import pg from 'pg';
import { loadBulkOrders } from './bulk-orders.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const serverRoot = path.resolve(import.meta.dirname, '..');
const secret = 'bench-only-secret-for-hs256-tokens-0123456789';

const adminQuery = async (url: string, sql: string, params: unknown[] = []) => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
};

const idsOf = async (url: string, table: string) =>
  (await adminQuery(url, `SELECT id FROM ${table} WHERE active ORDER BY id`)).map((row: { id: number }) => row.id);

/** Bulk-loads orders over the seeded master data, dated over the last 700 days. */
const loadListOrders = async (url: string, orders: number) => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const firstDay = new Date(Date.now() - 700 * 86_400_000).toISOString().slice(0, 10);
    await loadBulkOrders((sql, params) => client.query(sql, params), {
      orders,
      customerIds: await idsOf(url, 'customers'),
      productIds: await idsOf(url, 'products'),
      locationIds: await idsOf(url, 'locations'),
      firstDay,
      days: 700,
    });
  } finally {
    await client.end();
  }
};

/** The service in a process of its own; resolves with its origin once it listens. */
const startService = (env: Record<string, string>) => {
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: serverRoot,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '1000000', JWT_SECRET: secret, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const origin = new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the service exited with ${code}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      const entry = JSON.parse(line) as { msg?: string; port?: number };
      if (entry.msg === 'listening') resolve(`http://127.0.0.1:${entry.port}`);
    });
  });
  return { child, origin };
};

interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  auth: boolean;
}

const today = new Date().toISOString().slice(0, 10);
const scenarios: Scenario[] = [
  { name: 'baseline: GET /healthz', method: 'GET', path: '/healthz', auth: false },
  { name: 'GET /api/sales-orders/1', method: 'GET', path: '/api/sales-orders/1', auth: true },
  {
    name: 'POST /api/sales-orders/calculate-totals',
    method: 'POST',
    path: '/api/sales-orders/calculate-totals',
    body: { details: [{ quantity: 3, rate: 33.333 }, { quantity: 2.5, rate: 1200 }], other_charges: [{ amount: 150 }] },
    auth: true,
  },
  {
    name: 'POST /api/sales-orders/validate-licence',
    method: 'POST',
    path: '/api/sales-orders/validate-licence',
    body: { sales_order_details: [{ product_id: 1, quantity: 5 }, { product_id: 2, quantity: 1 }, { product_id: 6, quantity: 3 }] },
    auth: true,
  },
  { name: 'GET /api/sales-orders?limit=50 (newest first)', method: 'GET', path: '/api/sales-orders?limit=50', auth: true },
  {
    name: 'GET /api/sales-orders?limit=50 (a later page)',
    method: 'GET',
    // The cursor after (2025-06-01, id 100000) in the default sort.
    path: `/api/sales-orders?limit=50&cursor=${Buffer.from(JSON.stringify({ s: '-sales_order_date', k: '2025-06-01', i: 100_000 })).toString('base64url')}`,
    auth: true,
  },
  { name: 'GET /api/sales-orders?customer_id=12&sort=-grand_total', method: 'GET', path: '/api/sales-orders?limit=50&customer_id=12&sort=-grand_total', auth: true },
  { name: 'GET /api/sales-orders?q=a1b2', method: 'GET', path: '/api/sales-orders?limit=50&q=a1b2', auth: true },
  {
    name: 'GET /api/sales-orders (sync feed)',
    method: 'GET',
    path: '/api/sales-orders?limit=50&updated_since=2026-01-20T00:00:00Z&include_deleted=true&sort=updated_at',
    auth: true,
  },
  {
    name: 'POST /api/sales-orders (2 lines)',
    method: 'POST',
    path: '/api/sales-orders',
    body: {
      customer_id: 12,
      sales_order_date: today,
      location_id: 1,
      details: [
        { product_id: 1, packsize_id: 1, quantity: 3, rate: 33.333 },
        { product_id: 6, quantity: 0.5, rate: 1260 },
      ],
      other_charges: [{ description: 'Carriage', amount: 150 }],
    },
    auth: true,
  },
];

const main = async () => {
  const serverUrl = process.env.BENCH_DATABASE_URL;
  const dataDir = serverUrl ? undefined : await mkdtemp(path.join(tmpdir(), 'sales-orders-bench-'));
  const benchDatabase = `so_bench_${Date.now().toString(36)}`;
  let env: Record<string, string>;
  if (serverUrl) {
    await adminQuery(serverUrl, `CREATE DATABASE "${benchDatabase}"`);
    const url = new URL(serverUrl);
    url.pathname = `/${benchDatabase}`;
    env = { DATABASE_URL: url.toString(), SEED_DEMO_DATA: 'always' };
  } else {
    env = { DATA_DIR: dataDir!, SEED_DEMO_DATA: 'always' };
  }
  const service = startService(env);
  try {
    const origin = await service.origin;
    const listOrders = Number(process.env.BENCH_LIST_ORDERS ?? 200_000);
    if (serverUrl && listOrders > 0) {
      const url = new URL(serverUrl);
      url.pathname = `/${benchDatabase}`;
      console.log(`loading ${listOrders} orders for the list scenarios...`);
      await loadListOrders(url.toString(), listOrders);
    }
    const token = await new SignJWT({ permissions: ['*'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('bench')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(secret));

    const rows = [];
    for (const scenario of scenarios) {
      const result = await autocannon({
        url: `${origin}${scenario.path}`,
        method: scenario.method,
        connections,
        duration: seconds,
        headers: {
          ...(scenario.auth ? { authorization: `Bearer ${token}` } : {}),
          ...(scenario.body ? { 'content-type': 'application/json' } : {}),
        },
        body: scenario.body ? JSON.stringify(scenario.body) : undefined,
      });
      rows.push({
        scenario: scenario.name,
        'req/s': Math.round(result.requests.average),
        'p50 ms': result.latency.p50,
        'p90 ms': result.latency.p90,
        'p99 ms': result.latency.p99,
        'max ms': result.latency.max,
        'non-2xx': result.non2xx + result.errors + result.timeouts,
      });
    }
    const baseline = rows[0]!['req/s'];
    console.log(
      `\n${seconds} s per scenario, ${connections} connections, database: ${serverUrl ? 'PostgreSQL server' : 'embedded PGlite'}, node ${process.version}\n`,
    );
    console.table(rows.map((row) => ({ ...row, 'vs baseline': `${((row['req/s'] / baseline) * 100).toFixed(0)}%` })));
  } finally {
    service.child.kill('SIGTERM');
    await new Promise((resolve) => service.child.once('exit', resolve));
    if (serverUrl) await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${benchDatabase}" WITH (FORCE)`);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }
};

await main();
