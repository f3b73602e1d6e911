/**
 * `pnpm bench`: load figures for the main routes, side by side with baselines measured in the
 * same run, so the numbers say what each route costs on this machine rather than in general:
 *
 * - Express 4 hello world with JSON parsing (scripts/bench-baseline.mjs), on the same Node
 *   binary as the service: the ceiling of the HTTP stack. Routes without a database write are
 *   read against it.
 * - pgbench running the same create-order transaction in one series (scripts/pgbench/, a
 *   stand-in schema with the writes a create makes), when pgbench and a PostgreSQL server are
 *   at hand: the ceiling of the database. Creates are read against it.
 * - The fixed stack alone (scripts/bench-floor.mjs): Express + ts-rest + the contract's zod
 *   validation, and one Prisma round trip for the read, answering the service's own bytes.
 *   calculate-totals and GET order are also read against it: what the service adds to it.
 *
 * Two targets (docs/performance.md) are printed beside their rows in every run that has them:
 * calculate-totals at least 0.6 x its floor, and the production middleware at most 200 µs of
 * CPU per request (a cap), measured on a request whose own work is nothing: the cached options
 * of a master table, one of them (`limit=1`), through every middleware an API request passes (log, security
 * headers, CORS, rate limit, authentication, CSRF, permission, query and body checks, the
 * contract's validation, the envelope).
 *
 * Starts the built service (dist/main.js) as its own process on loopback, on a fresh embedded
 * database with demo data, or on BENCH_DATABASE_URL (a PostgreSQL server's maintenance
 * database: throwaway databases are created and dropped there). Every scenario is bounded in
 * time; traffic goes to 127.0.0.1 only. RSS is the service process's peak during a scenario.
 *
 * With BENCH_DATABASE_URL, BENCH_LIST_ORDERS orders (default 200,000) are bulk-loaded in SQL
 * before the list scenarios, so that GET /sales-orders is measured on a production-sized table
 * (the embedded database is the service's own process and is not loaded; its list figures are
 * for the demo data only).
 *
 * Exits with 1 when a scenario got no answer or more than half of its requests failed: a broken
 * route, which CI (.ci/run runs this on Node 24 against its PostgreSQL) must not let through.
 *
 *   pnpm bench                       # 5 s per scenario, 32 connections
 *   BENCH_SECONDS=10 BENCH_CONNECTIONS=16 pnpm bench
 *   BENCH_WARMUP_SECONDS=0 pnpm bench        # reads without their unmeasured warm-up (default 5 s, a process's first 15 s)
 *   BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres pnpm bench
 *   BENCH_ONLY='POST order' pnpm bench       # only the scenarios whose name contains it (the baselines always run)
 *   pnpm bench --only list,get               # the same, any of several (case-insensitive, comma-separated)
 *   pnpm bench --only 'one series)$'         # a term ending in $ must end the name (the create row alone)
 *   pnpm bench --against HEAD~20             # that build's server beside this one, interleaved rounds (mainAgainst)
 *   BENCH_ROUNDS=5 BENCH_AGAINST_MINUTES=20 pnpm bench --against v1.2.0 --only 'one series)$'
 *   BENCH_NODE_OPTIONS='--max-semi-space-size=16' pnpm bench  # the service's V8 flags (default: the Dockerfile's)
 *   BENCH_CPU_PROF=/tmp/prof pnpm bench      # + a V8 CPU profile of the single service process
 *
 * Metrics: GET order (5 lines) runs again on a second service process with METRICS_PORT set and
 * scraped every second (a PostgreSQL server only: the embedded database is one process's), read
 * against the row without: what measuring every request costs.
 *
 * Webhooks: the 5-line create runs a second time with one enabled webhook endpoint, a receiver
 * in this process on loopback (the service is started with WEBHOOK_ALLOW_HTTP and
 * WEBHOOK_ALLOW_PRIVATE_NETWORKS for it), read as a cost against the create without: what the
 * outbox, its relay and the deliveries take from create throughput. Below the table: deliveries
 * per second while they drain, and the latency from commit to receipt (see webhookLatency).
 *
 * Bursts (scripts/bench-burst.ts): 200 creates of one series at once, then 200 confirms at once
 * of drafts sharing a product licensed for 150 units, on the one service process with its
 * default pool: the answers by status (none may be 503) and their p50/p99.
 *
 * Licence history (scripts/bench-licence.ts, a PostgreSQL server only): confirms of one-line
 * drafts of a limited product whose licence window holds 1,000 confirmed lines, then 1,000,000
 * (loaded in SQL before the row): the larger history's cost (the smaller's req/s over its own) at
 * most 1.2 x, as the licence check reads running totals, not the lines
 * (`pnpm bench --only 'licence window'`, with BENCH_LIST_ORDERS=0 to skip the list's orders).
 *
 * Import (scripts/bench-import.ts): a CSV of BENCH_IMPORT_ORDERS (10,000) orders of the create
 * row's five lines in one series, imported alone: its orders per second from the upload to
 * `completed` (read against the 5-line create's req/s and the bulk rows'); then the same file
 * again with GET order driven as its idle row while it runs, that row's p99 read against the
 * idle row's (target: within 2 x; the import gives way to requests meanwhile, so its rate
 * then is printed, not compared); the load average beside them.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';

import autocannon from 'autocannon';
import { SignJWT } from 'jose';
import pg from 'pg';

import { buildRef, compareRounds, type Round, roundsText } from './bench-against.js';
import { type AutovacuumStandIn, autovacuumStandIn } from './bench-autovacuum.js';
import { burst, type BurstFigures, describeBurst } from './bench-burst.js';
import { benchFetch, describeImport, importBeside, importCsv } from './bench-import.js';
import {
  LICENCE_HISTORY_LINES,
  LICENCE_HISTORY_TARGET,
  licenceDrafts,
  licenceHistoryRow,
  loadLicenceHistory,
} from './bench-licence.js';
import {
  benchReports,
  describeReports,
  loadReportLines,
  REPORT_SCENARIOS,
  type ReportFigures,
} from './bench-reports.js';
import { startBenchReceiver, type WebhookFigures, webhookLatency } from './bench-webhooks.js';
import { loadBulkOrders } from './bulk-orders.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
/** Origins that have had their first (long) warm-up. */
const warmed = new Set<string>();
/** `--only a,b` or BENCH_ONLY='a,b': the scenarios whose name contains any of them, case-insensitive. */
const onlyArgument = process.argv.indexOf('--only');
const only = (onlyArgument >= 0 ? process.argv[onlyArgument + 1] : process.env.BENCH_ONLY)
  ?.split(',')
  .map((term) => term.trim().toLowerCase())
  .filter(Boolean);
/** A term ending in `$` must end the name: `one series)$` is the create row, not the one with a webhook. */
const wanted = (scenario: string) =>
  !only?.length ||
  only.some((term) =>
    term.endsWith('$') ? scenario.toLowerCase().endsWith(term.slice(0, -1)) : scenario.toLowerCase().includes(term),
  );
/** `--against <git ref>`: that build's server beside this one, every scenario in interleaved rounds. */
const againstArgument = process.argv.indexOf('--against');
const againstRef = againstArgument >= 0 ? process.argv[againstArgument + 1] : undefined;
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const serverRoot = path.resolve(import.meta.dirname, '..');
const secret = 'bench-only-secret-for-hs256-tokens-0123456789';

const adminQuery = async <Row extends pg.QueryResultRow = pg.QueryResultRow>(url: string, sql: string) => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(sql)).rows;
  } finally {
    await client.end();
  }
};

const idsOf = async (url: string, table: string) =>
  (await adminQuery<{ id: number }>(url, `SELECT id FROM ${table} WHERE active ORDER BY id`)).map((row) => row.id);

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
    // As a production table would be: vacuumed (visibility map set, so index-only scans need not
    // visit the table) and analysed. Without it autovacuum wakes up on the fresh rows during the
    // first scenarios and takes CPU from them on this machine.
    await client.query('VACUUM (ANALYZE)');
  } finally {
    await client.end();
  }
};

/** A server in a process of its own (same Node binary); resolves with its origin once it listens. */
const startProcess = (script: string, env: Record<string, string>, nodeArgs: string[] = [], cwd = serverRoot) => {
  const child = spawn(process.execPath, [...nodeArgs, script], {
    cwd,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_MINUTE: '1000000',
      BULK_ORDERS_PER_MINUTE: '10000000',
      JWT_SECRET: secret,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let metricsPort: number | undefined;
  const origin = new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the service exited with ${code}`)));
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      if (!line.startsWith('{')) return;
      const entry = JSON.parse(line) as { msg?: string; port?: number; level?: number };
      // Errors while starting (the service's "see the log above" points here): shown, not swallowed.
      if ((entry.level ?? 0) >= 50) process.stderr.write(`${line}\n`);
      // METRICS_PORT=0: the port the metrics server got, logged before the API listens.
      if (entry.msg === 'metrics listening') metricsPort = entry.port;
      if (entry.msg !== 'listening') return;
      // From here the log is drained unread: parsing the service's line per request would take
      // CPU from autocannon, in this process, and make the service look slower than it is.
      lines.close();
      child.stdout.resume();
      resolve(`http://127.0.0.1:${entry.port}`);
    });
  });
  return { child, origin, metricsPort: () => metricsPort };
};

/**
 * The heap bounds the Dockerfile gives the service (docs/performance.md, "Memory and cores");
 * BENCH_NODE_OPTIONS measures others.
 */
const SERVICE_NODE_OPTIONS = process.env.BENCH_NODE_OPTIONS ?? '--max-old-space-size=192 --max-semi-space-size=4';

/** BENCH_CPU_PROF=dir: the single service process writes a V8 CPU profile there when it stops. */
const profileArgs = process.env.BENCH_CPU_PROF
  ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`]
  : [];

/** The built service of `root` (this build's apps/server, or another build's for `--against`). */
const startService = (env: Record<string, string>, nodeArgs: string[] = [], root = serverRoot) =>
  startProcess('dist/main.js', { NODE_OPTIONS: SERVICE_NODE_OPTIONS, ...env }, nodeArgs, root);

/** Scenarios run again on WEB_CONCURRENCY=2 workers (a PostgreSQL server only), by name. */
const CLUSTER_SCENARIOS = [
  'POST calculate-totals',
  'GET order (5 lines)',
  'POST order (5 lines, server numbering, one series)',
];

/** A process and its children (a cluster's primary and workers), Linux /proc. */
const processTree = async (pid: number): Promise<number[]> => {
  const children = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  return [pid, ...children.split(/\s+/).filter(Boolean).map(Number)];
};

/** Peak resident memory of a cluster while `work` runs: its largest process and its total, in MB. */
const peakClusterRss = async <T>(pid: number, work: () => Promise<T>) => {
  const peaks = new Map<number, number>();
  let total = 0;
  const sample = async () => {
    let sum = 0;
    for (const each of await processTree(pid)) {
      const status = await readFile(`/proc/${each}/status`, 'utf8').catch(() => '');
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      peaks.set(each, Math.max(peaks.get(each) ?? 0, kb));
      sum += kb;
    }
    total = Math.max(total, sum);
  };
  const timer = setInterval(() => void sample(), 250);
  try {
    const result = await work();
    await sample();
    const largest = Math.max(...[...peaks].filter(([each]) => each !== pid).map(([, kb]) => kb));
    return { result, rss: `${Math.round(largest / 1024)} (total ${Math.round(total / 1024)})` };
  } finally {
    clearInterval(timer);
  }
};

/** Peak resident memory of a process while `work` runs, in MB (Linux /proc). */
const peakRss = async <T>(
  pid: number | undefined,
  work: () => Promise<T>,
): Promise<{ result: T; rssMb: number | null }> => {
  let peak = 0;
  const sample = async () => {
    if (pid === undefined) return;
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    peak = Math.max(peak, kb);
  };
  const timer = setInterval(() => void sample(), 250);
  try {
    const result = await work();
    await sample();
    return { result, rssMb: peak === 0 ? null : Math.round(peak / 1024) };
  } finally {
    clearInterval(timer);
  }
};

/** CPU time (user + system) a process has used, in ms (Linux /proc; clock ticks of 10 ms). */
const cpuMs = async (pid: number): Promise<number> => {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

interface Load {
  url: string;
  method: 'GET' | 'POST' | 'PUT';
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * Requests taken in turn instead of `url` and `body` alone (each connection's next request
   * takes the next one): writes that must differ from one request to the next.
   */
  rotate?: { path: string; body: unknown }[];
  /** Connections of this scenario, when not BENCH_CONNECTIONS. */
  connections?: number;
}

/**
 * Drives `url` for the scenario's time. With the serving process's `pid`, also its CPU time per
 * request, which moves far less than req/s when other work shares the machine.
 */
const load = async ({ url, method, body, headers = {}, rotate, connections: own }: Load, pid?: number) => {
  // A read first runs unmeasured for BENCH_WARMUP_SECONDS, three times as long on a process's
  // first: a process that has not served for long yet is slower (the first read of the service
  // measured 0.64-0.88 x the same read right after it, with 2 s or 6 s of warm-up; 20 s removed
  // the gap). Writes are not warmed: their requests may be consumed (drafts to confirm).
  if (method === 'GET' && warmupSeconds > 0) {
    const { origin } = new URL(url);
    const duration = warmed.has(origin) ? warmupSeconds : 3 * warmupSeconds;
    warmed.add(origin);
    await autocannon({ url, method, connections: own ?? connections, duration, headers });
  }
  const cpuBefore = pid === undefined ? undefined : await cpuMs(pid);
  let turn = 0;
  const rotating = rotate?.map((request) => ({ path: request.path, body: JSON.stringify(request.body) }));
  const result = await autocannon({
    url,
    method,
    connections: own ?? connections,
    duration: seconds,
    headers: { ...headers, ...(body || rotate ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    ...(rotating
      ? {
          requests: [
            {
              method,
              setupRequest: (request: autocannon.Request) => {
                const next = rotating[turn++ % rotating.length]!;
                return { ...request, method, path: next.path, body: next.body };
              },
            },
          ],
        }
      : {}),
  });
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    failed: result.non2xx + result.errors + result.timeouts,
    answered: result.requests.total,
    failures: failureNote(result),
    cpuUs:
      pid === undefined || cpuBefore === undefined
        ? null
        : Math.round((((await cpuMs(pid)) - cpuBefore) * 1000) / result.requests.total),
  };
};

/** What the failed requests were: non-2xx statuses by code, connection errors, timeouts. */
const failureNote = (result: autocannon.Result): string => {
  const statuses = Object.entries(result.statusCodeStats ?? {})
    .filter(([status]) => !status.startsWith('2'))
    .map(([status, { count = 0 }]) => `${count} x ${status}`);
  return [
    ...statuses,
    ...(result.errors > 0 ? [`${result.errors} connection errors`] : []),
    ...(result.timeouts > 0 ? [`${result.timeouts} timeouts`] : []),
  ].join(', ');
};

/** pgbench from PATH or Debian's PostgreSQL server packages (outside PATH), if installed. */
const findPgbench = (): string | undefined => {
  const onPath = (process.env.PATH ?? '').split(path.delimiter).map((dir) => path.join(dir, 'pgbench'));
  const debian = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql').map((version) => `/usr/lib/postgresql/${version}/bin/pgbench`)
    : [];
  return [...onPath, ...debian].find((file) => existsSync(file));
};

/** p50 and p99 latency, in ms, of pgbench's per-transaction logs (`-l`: the third field, µs). */
const pgbenchPercentiles = async (logDir: string) => {
  const latencies: number[] = [];
  for (const file of readdirSync(logDir)) {
    for (const line of (await readFile(path.join(logDir, file), 'utf8')).split('\n')) {
      const micros = Number(line.split(' ')[2]);
      if (line && Number.isFinite(micros)) latencies.push(micros);
    }
  }
  latencies.sort((a, b) => a - b);
  const at = (p: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]! / 1000);
  return latencies.length > 0 ? { p50: at(0.5), p99: at(0.99) } : { p50: Number.NaN, p99: Number.NaN };
};

/** The create-order transaction in one series, run by pgbench: transactions per second and latency percentiles. */
const pgbenchAnchor = async (serverUrl: string): Promise<{ tps: number; p50: number; p99: number } | undefined> => {
  const pgbench = findPgbench();
  if (!pgbench) return undefined;
  const database = `so_pgbench_${Date.now().toString(36)}`;
  await adminQuery(serverUrl, `CREATE DATABASE "${database}"`);
  // Per-transaction latencies (-l), for percentiles like the service's rows.
  const logDir = await mkdtemp(path.join(tmpdir(), 'sales-orders-pgbench-'));
  try {
    const url = new URL(serverUrl);
    url.pathname = `/${database}`;
    await adminQuery(url.toString(), await readFile(path.join(serverRoot, 'scripts/pgbench/bench-schema.sql'), 'utf8'));
    const { stdout } = await promisify(execFile)(
      pgbench,
      [
        '-n',
        '-M',
        'prepared',
        '-f',
        path.join(serverRoot, 'scripts/pgbench/create-order.sql'),
        '-c',
        String(connections),
        '-j',
        '2',
        '-T',
        String(seconds),
        '-l',
        `--log-prefix=${path.join(logDir, 'pgbench')}`,
        '-h',
        // A Unix-domain socket's directory (`?host=/var/run/postgresql`), like the service's connection.
        url.searchParams.get('host') ?? url.hostname,
        '-p',
        url.port || '5432',
        '-U',
        decodeURIComponent(url.username || 'postgres'),
        database,
      ],
      { env: { ...process.env, PGPASSWORD: decodeURIComponent(url.password) } },
    );
    const tps = Number(/tps = ([\d.]+)/.exec(stdout)?.[1]);
    return Number.isFinite(tps) ? { tps: Math.round(tps), ...(await pgbenchPercentiles(logDir)) } : undefined;
  } finally {
    await rm(logDir, { recursive: true, force: true });
    await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  }
};

const today = new Date().toISOString().slice(0, 10);
const fiveLines = [
  { product_id: 1, packsize_id: 1, quantity: 3, rate: 33.333 },
  { product_id: 2, quantity: 2, rate: 10 },
  { product_id: 3, quantity: 1, rate: 5.5 },
  { product_id: 5, quantity: 7, rate: 1.25 },
  { product_id: 6, quantity: 0.5, rate: 1260 },
];
/**
 * The same five lines on products whose licences set no quota (1: unlimited, 6: none needed):
 * product 1 keeps its packsize on the first line.
 */
const unlimitedFive = fiveLines.map((line, index) => ({ ...line, product_id: index % 2 === 0 ? 1 : 6 }));
const totalsBody = { details: fiveLines, other_charges: [{ amount: 150 }] };
/** The fixed stack's own rows (scripts/bench-floor.mjs), by name. */
const FLOOR = {
  calculateTotals: 'floor: Express + ts-rest + contract, calculate-totals answer',
  getOrder: 'floor: Express + ts-rest + contract + one Prisma round trip, GET order answer',
  list: 'floor: Express + ts-rest + contract + one Prisma round trip, list page answer',
};
/**
 * The reads' floors of one `pg` round trip (scripts/bench-pg-floor.mjs): the service's own
 * statement, its text answered by a bare node:http server.
 */
const PG_FLOOR = {
  getOrder: 'floor: node:http + one pg round trip of the read statement, its text',
  list: 'floor: node:http + one pg round trip of the page statement, its text',
};
/** The scenarios the floors stand under, by name (a floor runs when its scenario does). */
const SCENARIO = {
  calculateTotals: 'POST calculate-totals',
  getOrder: 'GET order (5 lines)',
  list: 'GET list, page of 50 (newest first)',
  /**
   * A request whose own work is nothing (the cached options of a one-row master table, one
   * option): what the production middleware and the stack cost every request.
   */
  middleware: 'GET dropdown-options (cached, 1 option): the production middleware',
};
/** Target: calculate-totals at least this share of its floor's req/s. */
const CALCULATE_TOTALS_FLOOR_TARGET = 0.6;
/** Target: the production middleware's CPU per request at most this, in µs (a cap, not a goal). */
const MIDDLEWARE_CPU_CAP_US = 200;
/** The same reads by a caller scoped to one location (the scope's cost; target <= 10 %). */
const SCOPED = {
  getOrder: `${SCENARIO.getOrder}, caller scoped to one location`,
  list: `${SCENARIO.list}, caller scoped to one location`,
};
const createBody = {
  customer_id: 12,
  sales_order_date: today,
  location_id: 1,
  details: fiveLines,
  other_charges: [{ description: 'Freight', amount: 0 }],
};
/** Orders in each bulk create of the bulk row (the default BULK_MAX_ORDERS). */
const BULK_ORDERS = 100;
/** The create row's order 100 times in one bulk call: one series, server numbering. */
const bulkBody = { orders: Array.from({ length: BULK_ORDERS }, () => createBody) };
const CREATE_ROW = 'POST order (5 lines, server numbering, one series)';
/**
 * Bulk calls in flight at once (BENCH_BULK_CONNECTIONS): each holds its series' counter from its
 * insert statement to its commit, so calls of one series take turns; 4 calls are 400 orders in
 * flight, more than the create row's 32.
 */
const bulkConnections = Number(process.env.BENCH_BULK_CONNECTIONS ?? 4);
const bulkRow = (calls: number) =>
  `POST bulk (${BULK_ORDERS} orders of 5 lines, server numbering, one series, ${calls} connection${calls === 1 ? '' : 's'})`;
const BULK_ROW = bulkRow(bulkConnections);
/**
 * One caller's bulk calls one after another: an import is one such stream (its chunks follow
 * each other in one series), so its rate is also read against this row's.
 */
const BULK_ONE_ROW = bulkRow(1);
/** The same order with 500 lines: a create's cost should not grow with its lines much. */
const create500Body = {
  ...createBody,
  details: Array.from({ length: 500 }, (_, index) => fiveLines[index % fiveLines.length]!),
};

interface Row {
  scenario: string;
  rps: number;
  /** Latencies of the requests; null for a row of another unit (the import's orders per second). */
  p50: number | null;
  p99: number | null;
  failed: number;
  /** Requests answered, whatever their status. */
  answered: number;
  /** failureNote: what the failed requests were, when any failed. */
  failures: string;
  rssMb: number | null;
  /** The serving process's CPU time per request, in µs; null for a cluster (its work is in the workers). */
  cpuUs: number | null;
  /** For a cluster: the largest worker's peak and the whole cluster's, instead of rssMb. */
  rssNote?: string;
  /** The floor row (FLOOR) this route is also read against: its req/s over the floor's. */
  floor?: string;
  /** The `pg` floor row (PG_FLOOR) this route is also read against. */
  pgFloor?: string;
  /** For a scoped caller's row: the unscoped caller's row of the same request. */
  unscoped?: string;
  /** For a read beside other work (the import): the same read's row on an otherwise idle service. */
  idle?: string;
  /** A target on the row's req/s over its floor's (`floor`), printed beside it. */
  floorTarget?: number;
  /** A cap on the row's CPU per request, in µs, printed beside it. */
  cpuCap?: number;
  /**
   * For the licence history's large row: the small row it is read against (its req/s over this
   * one's is the large history's cost, at most LICENCE_HISTORY_TARGET).
   */
  history?: string;
  /**
   * `read` / `create`: compared with the cost of the 5-line read / create (its req/s over this
   * one's); `create-rate`: this row's req/s over the 5-line create's (confirms against creates);
   * `bulk`: its orders per second over the 5-line create's, and its latency over the create's.
   */
  against:
    | 'hello'
    | 'pgbench'
    | 'read'
    | 'create'
    | 'create-rate'
    | 'update'
    | 'metrics'
    | 'unscoped'
    | 'idle'
    | 'bulk'
    | 'history'
    | null;
}

/** The bench's callers' headers: every permission, and the same caller scoped to one location. */
const callers = async () => {
  const token = await new SignJWT({ permissions: ['*'] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('bench')
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(secret));
  // The same caller scoped to the location the measured orders are in (a `locations` claim).
  const scopedToken = await new SignJWT({ permissions: ['*'], locations: [createBody.location_id] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('bench-scoped')
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(secret));
  return {
    headers: { authorization: `Bearer ${token}` },
    scopedHeaders: { authorization: `Bearer ${scopedToken}` },
  };
};

/**
 * One service to drive, and what its scenarios need made on it first, over HTTP only: the
 * orders they read and update. `createRate` is the service's 5-line create rate once measured
 * (how many drafts a confirm row needs). `pnpm bench --against` prepares two, the current
 * build's and another's, with the same calls.
 */
const prepareTarget = async (
  origin: string,
  headers: Record<string, string>,
  createRate: () => number | undefined,
  databaseUrl?: string,
) => {
  /**
   * A setup call to the service (POST when it has a body): its parsed answer, or the bench
   * stops with the service's status and body when it is not the one expected.
   */
  const setupCall = async (url: string, expected: number, body?: unknown): Promise<unknown> => {
    const response = await benchFetch(url, {
      method: body ? 'POST' : 'GET',
      headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    if (response.status !== expected) throw new Error(`setup: ${url} answered ${response.status}: ${text}`);
    return JSON.parse(text);
  };
  const createOrder = async (body: unknown): Promise<number> =>
    ((await setupCall(`${origin}/api/sales-orders`, 201, body)) as { data: { sales_order_id: number } }).data
      .sales_order_id;
  const orderId = await createOrder(createBody);
  // The same lines 100 times over: the read's cost growth with the line count.
  const largeOrderId = await createOrder({
    ...createBody,
    details: Array.from({ length: 100 }, () => fiveLines).flat(),
  });

  // Orders for the PUT scenarios, one per connection so that the writers do not queue on one
  // order's lock: each PUT replaces every line (two versions of them, in turn).
  const putOrders = async (lines: typeof fiveLines) => {
    const ids: number[] = [];
    for (let index = 0; index < connections; index += 1) ids.push(await createOrder({ ...createBody, details: lines }));
    return ids.flatMap((id) =>
      [1, 2].map((rate) => ({
        path: `/api/sales-orders/${id}`,
        body: { details: lines.map((line) => ({ ...line, rate: line.rate * rate })) },
      })),
    );
  };
  const putFive = wanted('PUT order (5 lines replaced)') ? await putOrders(fiveLines) : [];
  const putFiveHundred = wanted('PUT order (500 lines replaced)') ? await putOrders(create500Body.details) : [];

  /**
   * Drafts of `lines` to confirm, one per request and enough for the scenario's time at the
   * 5-line create's rate (measured just before), confirmed in turn (target: 0.8 x the create).
   */
  const confirmations = async (lines: typeof fiveLines, body: object) => {
    // A confirm can run at three times a create's rate (measured): four times the drafts a create row makes.
    const wantedDrafts = Math.ceil((createRate() ?? 1_000) * seconds * 4);
    const drafts: number[] = [];
    while (drafts.length < wantedDrafts)
      drafts.push(
        ...(await Promise.all(
          Array.from({ length: 16 }, () => createOrder({ ...createBody, details: lines, status: 'draft' })),
        )),
      );
    return { rotate: drafts.map((id) => ({ path: `/api/sales-orders/${id}/confirm`, body })) };
  };
  /**
   * The licence history rows (scripts/bench-licence.ts): the product and its `lines` loaded once
   * per service, then one-line drafts of it to confirm, enough for the scenario's time (confirms
   * of one limited product take turns on its quota lock: far fewer than 2,000 a second).
   */
  const histories = new Map<number, Promise<number>>();
  const historyConfirmations = async (lines: number) => {
    const where = { today, customerId: createBody.customer_id, locationId: createBody.location_id };
    let product = histories.get(lines);
    if (!product) {
      console.log(`loading ${lines.toLocaleString('en')} lines of a licensed product...`);
      product = loadLicenceHistory(databaseUrl!, { lines, ...where });
      histories.set(lines, product);
    }
    const drafts = await licenceDrafts(databaseUrl!, { productId: await product, count: seconds * 2_000, ...where });
    return { rotate: drafts.map((id) => ({ path: `/api/sales-orders/${id}/confirm`, body: {} })) };
  };
  return {
    origin,
    headers,
    setupCall,
    createOrder,
    orderId,
    largeOrderId,
    putFive,
    putFiveHundred,
    confirmations,
    databaseUrl,
    historyConfirmations,
  };
};
type Target = Awaited<ReturnType<typeof prepareTarget>>;

type Scenario = Load &
  Pick<Row, 'against' | 'floor' | 'pgFloor' | 'unscoped' | 'floorTarget' | 'cpuCap' | 'history'> & {
    name: string;
    webhook?: true;
    /** Work done right before the scenario, after those listed above it: what it sends. */
    prepare?: () => Promise<Partial<Load>>;
  };

/** The single service's scenarios, in the order they run, on `target`'s service. */
const scenariosOf = (
  { origin, orderId, largeOrderId, putFive, putFiveHundred, confirmations, databaseUrl, historyConfirmations }: Target,
  scopedHeaders: Record<string, string>,
): Scenario[] => [
  {
    name: SCENARIO.calculateTotals,
    against: 'hello',
    method: 'POST',
    url: `${origin}/api/sales-orders/calculate-totals`,
    body: totalsBody,
    floor: FLOOR.calculateTotals,
    floorTarget: CALCULATE_TOTALS_FLOOR_TARGET,
  },
  {
    name: SCENARIO.middleware,
    against: 'hello',
    cpuCap: MIDDLEWARE_CPU_CAP_US,
    method: 'GET',
    url: `${origin}/api/sales-orders/dropdown-options/ports?limit=1`,
  },
  {
    name: SCENARIO.getOrder,
    against: 'hello',
    floor: FLOOR.getOrder,
    pgFloor: PG_FLOOR.getOrder,
    method: 'GET',
    url: `${origin}/api/sales-orders/${orderId}`,
  },
  {
    name: SCOPED.getOrder,
    against: 'unscoped',
    unscoped: SCENARIO.getOrder,
    method: 'GET',
    url: `${origin}/api/sales-orders/${orderId}`,
    headers: scopedHeaders,
  },
  {
    name: 'GET order (500 lines)',
    against: 'read',
    method: 'GET',
    url: `${origin}/api/sales-orders/${largeOrderId}`,
  },
  {
    name: 'POST validate-licence (3 products)',
    against: 'hello',
    method: 'POST',
    url: `${origin}/api/sales-orders/validate-licence`,
    body: {
      sales_order_details: [
        { product_id: 1, quantity: 5 },
        { product_id: 2, quantity: 1 },
        { product_id: 6, quantity: 3 },
      ],
    },
  },
  {
    name: 'GET max-number',
    against: 'hello',
    method: 'GET',
    url: `${origin}/api/sales-orders/max-number?year_id=3&location_id=1`,
  },
  {
    name: SCENARIO.list,
    against: 'hello',
    floor: FLOOR.list,
    pgFloor: PG_FLOOR.list,
    method: 'GET',
    url: `${origin}/api/sales-orders?limit=50`,
  },
  {
    name: SCOPED.list,
    against: 'unscoped',
    unscoped: SCENARIO.list,
    method: 'GET',
    url: `${origin}/api/sales-orders?limit=50`,
    headers: scopedHeaders,
  },
  {
    name: 'GET list, a later page',
    against: 'hello',
    method: 'GET',
    // The cursor after (2025-06-01, id 100000) in the default sort.
    url: `${origin}/api/sales-orders?limit=50&cursor=${Buffer.from(JSON.stringify({ s: '-sales_order_date', k: '2025-06-01', i: 100_000 })).toString('base64url')}`,
  },
  {
    name: 'GET list, customer by grand total',
    against: 'hello',
    method: 'GET',
    url: `${origin}/api/sales-orders?limit=50&customer_id=12&sort=-grand_total`,
  },
  { name: 'GET list, q=a1b2', against: 'hello', method: 'GET', url: `${origin}/api/sales-orders?limit=50&q=a1b2` },
  {
    name: 'GET list, sync feed',
    against: 'hello',
    method: 'GET',
    url: `${origin}/api/sales-orders?limit=50&updated_since=2026-01-20T00:00:00Z&include_deleted=true&sort=updated_at`,
  },
  {
    name: CREATE_ROW,
    against: 'pgbench',
    method: 'POST',
    url: `${origin}/api/sales-orders`,
    body: createBody,
  },
  {
    // Orders per second through bulk calls, beside the single create of this run.
    name: BULK_ROW,
    against: 'bulk',
    method: 'POST',
    url: `${origin}/api/sales-orders/bulk`,
    body: bulkBody,
    connections: bulkConnections,
  },
  ...(bulkConnections === 1
    ? []
    : [
        {
          name: BULK_ONE_ROW,
          against: 'bulk' as const,
          method: 'POST' as const,
          url: `${origin}/api/sales-orders/bulk`,
          body: bulkBody,
          connections: 1,
        },
      ]),
  {
    name: 'POST order (5 lines, server numbering, one series) + 1 webhook endpoint',
    against: 'create',
    method: 'POST',
    url: `${origin}/api/sales-orders`,
    body: createBody,
    webhook: true,
  },
  {
    // Products 1 (an unlimited licence) and 6 (no licence needed): no quota, no lock.
    name: 'POST confirm (5 lines, no limited product)',
    against: 'create-rate',
    method: 'POST',
    url: origin,
    prepare: () => confirmations(unlimitedFive, {}),
  },
  {
    // The create row's lines: products 2 and 3 have limited licences, shared by every order,
    // so each confirm takes their quota locks; the quota is overridden, not run out.
    name: "POST confirm (the create row's 5 lines, 2 limited products shared)",
    against: 'create-rate',
    method: 'POST',
    url: origin,
    prepare: () => confirmations(fiveLines, { acknowledge_warnings: true }),
  },
  // A PostgreSQL server only: a million lines are the database's work, not the embedded one's.
  // The larger history first: writes are not warmed up, so it runs on the colder process.
  ...(databaseUrl
    ? [LICENCE_HISTORY_LINES.large, LICENCE_HISTORY_LINES.small].map((lines): Scenario => ({
        name: licenceHistoryRow(lines),
        ...(lines === LICENCE_HISTORY_LINES.small
          ? { against: 'create-rate' }
          : { against: 'history', history: licenceHistoryRow(LICENCE_HISTORY_LINES.small) }),
        method: 'POST',
        url: origin,
        prepare: () => historyConfirmations(lines),
      }))
    : []),
  {
    name: 'POST order (500 lines)',
    against: 'create',
    method: 'POST',
    url: `${origin}/api/sales-orders`,
    body: create500Body,
  },
  {
    name: 'PUT order (5 lines replaced)',
    against: 'hello',
    method: 'PUT',
    url: origin,
    rotate: putFive,
  },
  {
    name: 'PUT order (500 lines replaced)',
    against: 'update',
    method: 'PUT',
    url: origin,
    rotate: putFiveHundred,
  },
];

/**
 * Runs one scenario on `target`'s service (process `pid`): its preparation, a webhook receiver
 * and endpoint when it has one (with the commit -> receipt latency after the load when
 * `webhookLatencies`), then its load.
 */
const runScenario = async (
  target: Target,
  {
    name: _name,
    against: _against,
    floor: _floor,
    pgFloor: _pgFloor,
    unscoped: _unscoped,
    floorTarget: _target,
    cpuCap: _cap,
    history: _history,
    webhook,
    prepare,
    ...listed
  }: Scenario,
  pid: number | undefined,
  webhookLatencies = true,
) => {
  const { origin, headers, setupCall, createOrder } = target;
  const scenario = { ...listed, ...(await prepare?.()) };
  const receiver = webhook ? await startBenchReceiver() : undefined;
  const endpoint = receiver
    ? ((await setupCall(`${origin}/api/webhook-endpoints`, 201, { url: receiver.url })) as { data: { id: number } })
        .data.id
    : undefined;
  try {
    const measured = await peakRss(pid, () => load({ headers, ...scenario }, pid));
    const webhookFigures =
      receiver && webhookLatencies
        ? await webhookLatency(receiver, {
            created: measured.result.answered - measured.result.failed,
            create: () => createOrder(createBody),
          })
        : undefined;
    return { ...measured, webhookFigures };
  } finally {
    if (endpoint !== undefined) {
      await fetch(`${origin}/api/webhook-endpoints/${endpoint}`, { method: 'DELETE', headers });
    }
    await receiver?.close();
  }
};

const main = async () => {
  const serverUrl = process.env.BENCH_DATABASE_URL;
  const dataDir = serverUrl ? undefined : await mkdtemp(path.join(tmpdir(), 'sales-orders-bench-'));
  const benchDatabase = `so_bench_${Date.now().toString(36)}`;
  const rows: Row[] = [];

  const baseline = startProcess('scripts/bench-baseline.mjs', {});
  try {
    const origin = await baseline.origin;
    const measured = await peakRss(baseline.child.pid, () =>
      load({ url: `${origin}/hello`, method: 'POST', body: { details: fiveLines } }, baseline.child.pid),
    );
    rows.push({
      scenario: 'baseline: Express hello world, JSON in and out',
      ...measured.result,
      rssMb: measured.rssMb,
      against: null,
    });
  } finally {
    baseline.child.kill('SIGTERM');
    await new Promise((resolve) => baseline.child.once('exit', resolve));
  }
  const anchor = serverUrl ? await pgbenchAnchor(serverUrl) : undefined;

  let env: Record<string, string>;
  let standIn: AutovacuumStandIn | undefined;
  if (serverUrl) {
    await adminQuery(serverUrl, `CREATE DATABASE "${benchDatabase}"`);
    const url = new URL(serverUrl);
    url.pathname = `/${benchDatabase}`;
    env = { DATABASE_URL: url.toString(), SEED_DEMO_DATA: 'always' };
    standIn = await autovacuumStandIn(url.toString());
  } else {
    env = { DATA_DIR: dataDir!, SEED_DEMO_DATA: 'always' };
  }
  // The webhook scenario's receiver is on loopback, over http.
  env = { ...env, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
  let webhookFigures: WebhookFigures | undefined;
  let aloneLatencies: Record<'create' | 'bulk', { p50: number; p90: number }> | undefined;
  let importLine: string | undefined;
  let reportFigures: ReportFigures[] = [];
  const bursts: BurstFigures[] = [];
  const service = startService(env, profileArgs);
  try {
    const origin = await service.origin;
    const listOrders = Number(process.env.BENCH_LIST_ORDERS ?? 200_000);
    if (serverUrl && listOrders > 0) {
      const url = new URL(serverUrl);
      url.pathname = `/${benchDatabase}`;
      console.log(`loading ${listOrders} orders for the list scenarios...`);
      await loadListOrders(url.toString(), listOrders);
    }
    const { headers, scopedHeaders } = await callers();
    // The create row's rate, once measured: how many drafts a confirm row needs.
    const target = await prepareTarget(
      origin,
      headers,
      () => rows.find((row) => row.scenario === CREATE_ROW)?.rps,
      serverUrl ? env.DATABASE_URL : undefined,
    );
    const { setupCall, createOrder, orderId } = target;

    // The fixed stack alone (scripts/bench-floor.mjs), answering the service's own bytes.
    const floorAnswers = {
      calculateTotals: await setupCall(`${origin}/api/sales-orders/calculate-totals`, 200, totalsBody),
      getSalesOrder: await setupCall(`${origin}/api/sales-orders/${orderId}`, 200),
      listSalesOrders: await setupCall(`${origin}/api/sales-orders?limit=50`, 200),
    };
    const floor = startProcess('scripts/bench-floor.mjs', {
      FLOOR_ANSWERS: JSON.stringify(floorAnswers),
      // The embedded database serves the service alone: no round trip for the floor there.
      DATABASE_URL: serverUrl ? env.DATABASE_URL! : '',
    });
    try {
      const floorOrigin = await floor.origin;
      const floorScenarios: (Load & { name: string; under: string })[] = [
        {
          name: FLOOR.calculateTotals,
          under: SCENARIO.calculateTotals,
          method: 'POST',
          url: `${floorOrigin}/api/sales-orders/calculate-totals`,
          body: totalsBody,
        },
        ...(serverUrl
          ? [
              {
                name: FLOOR.getOrder,
                under: SCENARIO.getOrder,
                method: 'GET' as const,
                url: `${floorOrigin}/api/sales-orders/${orderId}`,
              },
              {
                name: FLOOR.list,
                under: SCENARIO.list,
                method: 'GET' as const,
                url: `${floorOrigin}/api/sales-orders?limit=50`,
              },
            ]
          : []),
      ];
      for (const { name, under: _under, ...scenario } of floorScenarios.filter(({ under }) => wanted(under))) {
        const measured = await peakRss(floor.child.pid, () => load(scenario, floor.child.pid));
        rows.push({ scenario: name, ...measured.result, rssMb: measured.rssMb, against: 'hello' });
      }
    } finally {
      floor.child.kill('SIGTERM');
      await new Promise((resolve) => floor.child.once('exit', resolve));
    }
    // The reads' `pg` floors (scripts/bench-pg-floor.mjs), on a PostgreSQL server.
    const pgFloorScenarios = [
      { name: PG_FLOOR.getOrder, under: SCENARIO.getOrder, path: `/order/${orderId}` },
      { name: PG_FLOOR.list, under: SCENARIO.list, path: '/list' },
    ].filter(({ under }) => serverUrl && wanted(under));
    if (pgFloorScenarios.length > 0) {
      // PG_FLOOR_DIST (bench-pg-floor.mjs), when set, reaches it with the rest of the environment.
      const pgFloor = startProcess('scripts/bench-pg-floor.mjs', { DATABASE_URL: env.DATABASE_URL! });
      try {
        const pgFloorOrigin = await pgFloor.origin;
        for (const { name, path: floorPath } of pgFloorScenarios) {
          const url = `${pgFloorOrigin}${floorPath}`;
          // The floor answers the service's bytes (the list's next_cursor aside, which it writes itself).
          const [floorAnswer, serviceAnswer] = await Promise.all([
            fetch(url).then((response) => response.text()),
            fetch(`${origin}/api${floorPath === '/list' ? '/sales-orders?limit=50' : `/sales-orders/${orderId}`}`, {
              headers,
            }).then((response) => response.text()),
          ]);
          if (floorAnswer !== serviceAnswer) {
            console.log(
              `note: ${name} answers ${floorAnswer.length} bytes, the service ${serviceAnswer.length} other ones`,
            );
          }
          const measured = await peakRss(pgFloor.child.pid, () => load({ method: 'GET', url }, pgFloor.child.pid));
          rows.push({ scenario: name, ...measured.result, rssMb: measured.rssMb, against: 'hello' });
        }
      } finally {
        pgFloor.child.kill('SIGTERM');
        await new Promise((resolve) => pgFloor.child.once('exit', resolve));
      }
    }

    const scenarios = scenariosOf(target, scopedHeaders);
    for (const scenario of scenarios.filter(({ name }) => wanted(name))) {
      await standIn?.settle();
      const measured = await runScenario(target, scenario, service.child.pid);
      const { name, against, floor: floorRow, pgFloor, unscoped, floorTarget, cpuCap, history } = scenario;
      rows.push({
        scenario: name,
        ...measured.result,
        rssMb: measured.rssMb,
        against,
        floor: floorRow,
        pgFloor,
        unscoped,
        floorTarget,
        cpuCap,
        history,
      });
      webhookFigures = measured.webhookFigures ?? webhookFigures;
    }
    if (wanted(BULK_ROW)) {
      // One request at a time, nothing else running: a bulk of 100's latency against one create's.
      const alone = async (url: string, body: unknown, expected: number) => {
        const times: number[] = [];
        for (let index = 0; index < 30; index += 1) {
          const started = performance.now();
          await setupCall(url, expected, body);
          times.push(performance.now() - started);
        }
        times.sort((a, b) => a - b);
        return { p50: times[Math.floor(times.length / 2)]!, p90: times[Math.floor(times.length * 0.9)]! };
      };
      await standIn?.settle();
      const create = await alone(`${origin}/api/sales-orders`, createBody, 201);
      const bulk = await alone(`${origin}/api/sales-orders/bulk`, bulkBody, 201);
      aloneLatencies = { create, bulk };
    }
    if (wanted('burst')) {
      // All at once on this one process and its default pool; none may be 503.
      const post = (url: string, body: unknown) => () =>
        fetch(url, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      await standIn?.settle();
      bursts.push(
        await burst(
          'burst: 200 concurrent creates, one series',
          Array.from({ length: 200 }, () => post(`${origin}/api/sales-orders`, createBody)),
        ),
      );
      // The demo data's product 2 is licensed for 150 units: the confirms past them answer 422.
      const drafts: number[] = [];
      for (let start = 0; start < 200; start += 10) {
        drafts.push(
          ...(await Promise.all(
            Array.from({ length: 10 }, () =>
              createOrder({ ...createBody, details: [{ product_id: 2, quantity: 1, rate: 10 }] }),
            ),
          )),
        );
      }
      bursts.push(
        await burst(
          'burst: 200 concurrent confirms sharing a limited product',
          drafts.map((id) => post(`${origin}/api/sales-orders/${id}/confirm`, {})),
        ),
      );
    }
    if (wanted('import')) {
      // A file of BENCH_IMPORT_ORDERS orders of the create row's lines in one series,
      // and GET order driven as its idle row is while the import runs (target: p99 within 2 x).
      const read = { method: 'GET' as const, url: `${origin}/api/sales-orders/${orderId}`, headers };
      if (!rows.some((row) => row.scenario === SCENARIO.getOrder)) {
        await standIn?.settle();
        const measured = await peakRss(service.child.pid, () => load(read, service.child.pid));
        rows.push({ scenario: SCENARIO.getOrder, ...measured.result, rssMb: measured.rssMb, against: 'hello' });
      }
      const orders = Number(process.env.BENCH_IMPORT_ORDERS ?? 10_000);
      const file = importCsv(orders, {
        customerId: createBody.customer_id,
        locationId: createBody.location_id,
        date: today,
        lines: fiveLines,
      });
      // The import alone (its rate, read against the bulk rows), then the same file again with
      // GET order driven beside it: an import gives way to requests (docs/decisions/imports-give-way-to-requests.md), so its
      // rate beside them is not its rate.
      await standIn?.settle();
      const { figures: alone } = await importBeside({ origin, headers, ...file }, () => Promise.resolve());
      await standIn?.settle();
      const { figures, beside } = await importBeside({ origin, headers, ...file }, () =>
        peakRss(service.child.pid, () => load(read, service.child.pid)),
      );
      const failed = alone.failed + figures.failed;
      rows.push({
        scenario: `import: ${orders} five-line orders, one series, CSV (orders/s)`,
        rps: alone.ordersPerSecond,
        p50: null,
        p99: null,
        failed,
        answered: alone.orders + figures.orders,
        failures: failed > 0 ? `${failed} orders of the imports failed` : '',
        rssMb: null,
        cpuUs: null,
        against: 'create-rate',
      });
      rows.push({
        scenario: `${SCENARIO.getOrder} while the import runs`,
        ...beside.result,
        rssMb: beside.rssMb,
        against: 'idle',
        idle: SCENARIO.getOrder,
      });
      const idle = rows.find((row) => row.scenario === SCENARIO.getOrder)!;
      importLine = describeImport(alone, figures, { beside: beside.result.p99, idle: idle.p99 ?? 0 });
    }
    if (serverUrl && wanted('GET order (5 lines) with metrics')) {
      // The same read on a second process of the same build and database with METRICS_PORT set,
      // scraped every second as a busy Prometheus would (the usual interval is 15 s): the cost
      // of measuring every request, read against the row without. The first process idles.
      const measuredService = startService({ ...env, SEED_DEMO_DATA: 'never', METRICS_PORT: '0' });
      try {
        const measuredOrigin = await measuredService.origin;
        const metricsUrl = `http://127.0.0.1:${measuredService.metricsPort()}/metrics`;
        const scrapes = setInterval(() => void fetch(metricsUrl).then((response) => response.text()), 1_000);
        try {
          const read = { method: 'GET' as const, url: `${measuredOrigin}/api/sales-orders/${orderId}`, headers };
          await standIn?.settle();
          // A fresh process: load() warms it up as long as a process's first read.
          const measured = await peakRss(measuredService.child.pid, () => load(read, measuredService.child.pid));
          rows.push({
            scenario: 'GET order (5 lines) with metrics',
            ...measured.result,
            rssMb: measured.rssMb,
            against: 'metrics',
          });
        } finally {
          clearInterval(scrapes);
        }
      } finally {
        measuredService.child.kill('SIGTERM');
        await new Promise((resolve) => measuredService.child.once('exit', resolve));
      }
    }
    if (serverUrl) {
      // The same database, now served by two workers (node:cluster); the single process idles.
      const cluster = startService({ ...env, SEED_DEMO_DATA: 'never', WEB_CONCURRENCY: '2' });
      try {
        const clusterOrigin = await cluster.origin;
        for (const {
          name,
          against,
          floor: _floor,
          pgFloor: _pgFloor,
          unscoped: _unscoped,
          floorTarget: _floorTarget,
          cpuCap: _cpuCap,
          ...scenario
        } of scenarios.filter((each) => CLUSTER_SCENARIOS.includes(each.name) && wanted(each.name))) {
          await standIn?.settle();
          const measured = await peakClusterRss(cluster.child.pid!, () =>
            load({ headers, ...scenario, url: scenario.url.replace(origin, clusterOrigin) }),
          );
          rows.push({
            scenario: `${name} (2 workers)`,
            ...measured.result,
            rssMb: null,
            rssNote: measured.rss,
            against,
          });
        }
      } finally {
        if (cluster.child.exitCode === null) {
          cluster.child.kill('SIGTERM');
          await new Promise((resolve) => cluster.child.once('exit', resolve));
        }
      }
    }
    if (serverUrl && listOrders > 0 && REPORT_SCENARIOS.some(({ name }) => wanted(name))) {
      // Last: the report rows add four lines to every loaded order (1,000,000 lines for 200,000 orders).
      const url = new URL(serverUrl);
      url.pathname = `/${benchDatabase}`;
      console.log('adding four lines to each loaded order for the report scenarios...');
      const lines = await loadReportLines(url.toString());
      console.log(`${lines} order lines`);
      await standIn?.settle();
      reportFigures = await benchReports({ origin, url: url.toString(), headers, seconds, wanted });
    }
  } finally {
    service.child.kill('SIGTERM');
    await new Promise((resolve) => service.child.once('exit', resolve));
    if (serverUrl) await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${benchDatabase}" WITH (FORCE)`);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }

  const hello = rows[0]!.rps;
  const fiveLineRead = rows.find((row) => row.scenario === 'GET order (5 lines)');
  const fiveLineCreate = rows.find((row) => row.scenario.startsWith('POST order (5 lines'));
  const fiveLineUpdate = rows.find((row) => row.scenario === 'PUT order (5 lines replaced)');
  /** A bulk row's orders created per second: its answered calls that succeeded, each of BULK_ORDERS orders. */
  const ordersPerSecond = (row: Row) => Math.round(((row.answered - row.failed) * BULK_ORDERS) / seconds);
  console.log(
    `\n${seconds} s per scenario, ${connections} connections, database: ${serverUrl ? 'PostgreSQL server' : 'embedded PGlite'}, node ${process.version}\n`,
  );
  /** `row` read against another row by name: its req/s over the other's, and its p99 over the other's. */
  const against = (row: Row, name: string | undefined, label: string) => {
    const other = name ? rows.find((each) => each.scenario === name) : undefined;
    return other
      ? `, ${(row.rps / other.rps).toFixed(2)} x ${label}` +
          (row.p99 === null || other.p99 === null ? '' : ` (p99 ${(row.p99 / Math.max(1, other.p99)).toFixed(1)} x)`)
      : '';
  };
  const floorRatio = (row: Row) => against(row, row.floor, 'floor') + against(row, row.pgFloor, 'pg floor');
  /** The row's target and where it stands in this run; '' for a row without one. */
  const targetOf = (row: Row) => {
    const small = rows.find((each) => each.scenario === row.history);
    if (small) {
      const cost = small.rps / Math.max(1, row.rps);
      return `cost <= ${LICENCE_HISTORY_TARGET} x the ${small.scenario.match(/with ([\d,]+) lines/)?.[1]}-line row: ${cost.toFixed(2)} x, ${cost <= LICENCE_HISTORY_TARGET ? 'met' : 'not met'}`;
    }
    const floor = rows.find((each) => each.scenario === row.floor);
    if (row.floorTarget !== undefined && floor) {
      const share = row.rps / floor.rps;
      return `>= ${row.floorTarget} x floor: ${share.toFixed(2)} x, ${share >= row.floorTarget ? 'met' : 'not met'}`;
    }
    // The hello world's CPU beside it: on a busy machine every process's CPU per request grows.
    if (row.cpuCap !== undefined && row.cpuUs !== null)
      return (
        `CPU <= ${row.cpuCap} µs (a cap): ${row.cpuUs} µs, ${row.cpuUs <= row.cpuCap ? 'within' : 'over'}` +
        (rows[0]!.cpuUs === null ? '' : ` (hello ${rows[0]!.cpuUs} µs)`)
      );
    return '';
  };
  const table: Record<string, string | number>[] = rows.map((row) => ({
    scenario: row.scenario,
    'req/s': row.rps,
    'p50 ms': row.p50 ?? '-',
    'p99 ms': row.p99 ?? '-',
    ratio:
      row.against === 'hello'
        ? `${(row.rps / hello).toFixed(2)} x hello${floorRatio(row)}`
        : row.against === 'pgbench'
          ? anchor
            ? `${(row.rps / anchor.tps).toFixed(2)} x pgbench`
            : 'no pgbench'
          : row.against === 'read'
            ? fiveLineRead
              ? `cost ${(fiveLineRead.rps / row.rps).toFixed(2)} x 5-line read`
              : '-'
            : row.against === 'create'
              ? fiveLineCreate
                ? `cost ${(fiveLineCreate.rps / row.rps).toFixed(2)} x 5-line create`
                : '-'
              : row.against === 'create-rate'
                ? fiveLineCreate
                  ? `${(row.rps / fiveLineCreate.rps).toFixed(2)} x 5-line create`
                  : '-'
                : row.against === 'metrics'
                  ? fiveLineRead
                    ? `${(row.rps / fiveLineRead.rps).toFixed(2)} x without metrics`
                    : '-'
                  : row.against === 'update'
                    ? fiveLineUpdate
                      ? `cost ${(fiveLineUpdate.rps / row.rps).toFixed(2)} x 5-line PUT`
                      : '-'
                    : row.against === 'unscoped'
                      ? against(row, row.unscoped, 'unscoped').slice(2) || '-'
                      : row.against === 'bulk'
                        ? fiveLineCreate
                          ? `${ordersPerSecond(row)} orders/s: ${(ordersPerSecond(row) / fiveLineCreate.rps).toFixed(2)} x ` +
                            `5-line create's; p50 ${((row.p50 ?? Number.NaN) / Math.max(1, fiveLineCreate.p50 ?? Number.NaN)).toFixed(1)} x its`
                          : '-'
                        : row.against === 'idle'
                          ? against(row, row.idle, 'idle').slice(2) || '-'
                          : row.against === 'history'
                            ? against(row, row.history, 'the smaller history').slice(2) || '-'
                            : 'baseline',
    'RSS MB': row.rssNote ?? row.rssMb ?? '-',
    'CPU µs/req': row.cpuUs ?? '-',
    failed: row.failed,
    target: targetOf(row),
  }));
  if (anchor)
    table.splice(1, 0, {
      scenario: 'baseline: pgbench create-order, one series',
      'req/s': anchor.tps,
      'p50 ms': anchor.p50,
      'p99 ms': anchor.p99,
      ratio: 'baseline',
      'RSS MB': '-',
      'CPU µs/req': '-',
      failed: 0,
      target: '',
    });
  console.table(table);
  for (const row of rows.filter((each) => each.failures)) console.log(`failed in '${row.scenario}': ${row.failures}`);
  if (webhookFigures) {
    const { deliveriesPerSecond, delivered, duplicates, expected, p50, p99, probes } = webhookFigures;
    console.log(
      `webhooks: events of ${delivered} orders received (${expected} creates answered 201, ${duplicates} sent twice), ` +
        `${deliveriesPerSecond} deliveries/s from the first receipt to the last; ` +
        `commit -> receipt p50 ${p50} ms, p99 ${p99} ms (${probes} creates one at a time)`,
    );
  }
  for (const figures of bursts) console.log(describeBurst(figures));
  if (aloneLatencies) {
    const { create, bulk } = aloneLatencies;
    const ms = (value: number) => value.toFixed(1);
    console.log(
      `one at a time (30 each, nothing else running): a create p50 ${ms(create.p50)} ms (p90 ${ms(create.p90)}), ` +
        `a bulk of ${BULK_ORDERS} p50 ${ms(bulk.p50)} ms (p90 ${ms(bulk.p90)}): ${(bulk.p50 / create.p50).toFixed(1)} x a create's ` +
        `latency for ${BULK_ORDERS} x its orders`,
    );
  }
  if (importLine) console.log(importLine);
  for (const line of describeReports(reportFigures)) console.log(line);
  const standInLine = standIn?.describe();
  if (standInLine) console.log(standInLine);
  const importRow = rows.find((row) => row.scenario.startsWith('import: '));
  const bulkRows = rows.filter((row) => row.scenario === BULK_ROW || row.scenario === BULK_ONE_ROW);
  if (importRow && bulkRows.length > 0)
    console.log(
      `import against bulk calls (target: at least 1 x): ` +
        bulkRows
          .map(
            (row) =>
              `${(importRow.rps / Math.max(1, ordersPerSecond(row))).toFixed(2)} x the bulk rate with ` +
              `${row.scenario === BULK_ONE_ROW ? 'one call at a time' : `${bulkConnections} calls at once`} (${ordersPerSecond(row)} orders/s)`,
          )
          .join(', '),
    );
  // The figures are for people to read: this machine's noise is too large for a threshold on
  // them. A route that mostly fails, though, is broken, not slow: CI (.ci/run) fails on it. A few
  // failures stay a note (a 503 for a wait past DATABASE_CONNECT_TIMEOUT_MS is by design).
  const broken = rows.filter((row) => row.answered === 0 || row.failed * 2 > row.answered);
  for (const row of broken)
    console.error(`broken: '${row.scenario}' had ${row.failed} failed requests of ${row.answered} answered`);
  if (broken.length > 0) process.exitCode = 1;
  if (!anchor)
    console.log(
      serverUrl
        ? 'pgbench not found: no database anchor for creates.'
        : 'Embedded database: no pgbench anchor (set BENCH_DATABASE_URL).',
    );
  console.log(
    serverUrl
      ? '(2 workers): WEB_CONCURRENCY=2 on the same database; RSS MB is the largest worker (and the whole cluster, primary included).'
      : 'No 2-worker rows: the embedded database runs in one process (set BENCH_DATABASE_URL).',
  );
};

/**
 * `--against <ref>`: the ref's server (scripts/bench-against.ts builds it in a temporary
 * worktree) and the current one side by side, each on a database of its own migrated by its own
 * migrations and seeded by its own demo data, then every wanted scenario of the single service
 * in BENCH_ROUNDS interleaved rounds (the current build first in odd rounds, the ref first in
 * even ones). Both are prepared and driven by this bench's client over HTTP only. No floors,
 * bursts, import, metrics or cluster rows. Bounded by BENCH_AGAINST_MINUTES in all (rounds stop
 * early when another would not fit; past the bound the run is stopped and fails); the worktree,
 * the databases and the processes are removed on every way out, a signal included.
 */
const mainAgainst = async (ref: string) => {
  const serverUrl = process.env.BENCH_DATABASE_URL;
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const minutes = Number(process.env.BENCH_AGAINST_MINUTES ?? 30);
  const deadline = Date.now() + minutes * 60_000;
  const listOrders = Number(process.env.BENCH_LIST_ORDERS ?? 200_000);
  /** Undone last first: processes, then databases, then the worktree. */
  const cleanups: (() => Promise<unknown>)[] = [];
  const cleanUp = async () => {
    for (let next = cleanups.pop(); next; next = cleanups.pop())
      await next().catch((error: unknown) => console.error(`cleaning up: ${String(error)}`));
  };
  const stop = (why: string, code: number) => {
    console.error(`--against: ${why}; cleaning up`);
    void cleanUp().finally(() => process.exit(code));
  };
  const onSignal = (signal: NodeJS.Signals) => stop(`stopped by ${signal}`, signal === 'SIGINT' ? 130 : 143);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const bound = setTimeout(() => stop(`over its bound of ${minutes} min`, 1), deadline - Date.now());
  const measured = new Map<string, [Round[], Round[]]>();
  const notes: string[] = [];
  let labels: [string, string] = ['current', ref];
  try {
    const build = await buildRef(path.resolve(serverRoot, '../..'), ref, deadline);
    cleanups.push(build.remove);
    labels = ['current', `${ref} (${build.commit})`];
    const services = [];
    for (const [index, root] of [serverRoot, build.serverRoot].entries()) {
      let env: Record<string, string>;
      const database = `so_bench_${Date.now().toString(36)}_${index}`;
      const url = serverUrl ? new URL(serverUrl) : undefined;
      if (serverUrl && url) {
        url.pathname = `/${database}`;
        await adminQuery(serverUrl, `CREATE DATABASE "${database}"`);
        cleanups.push(() => adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));
        env = { DATABASE_URL: url.toString() };
      } else {
        const dataDir = await mkdtemp(path.join(tmpdir(), 'sales-orders-bench-'));
        cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
        env = { DATA_DIR: dataDir };
      }
      const service = startService(
        { ...env, SEED_DEMO_DATA: 'always', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
        [],
        root,
      );
      cleanups.push(async () => {
        if (service.child.exitCode !== null) return;
        service.child.kill('SIGTERM');
        await new Promise((resolve) => service.child.once('exit', resolve));
      });
      services.push({ service, origin: await service.origin, url });
    }
    // Both databases at once: the services idle meanwhile.
    await Promise.all(
      services.map(async ({ url }, index) => {
        if (!url || listOrders <= 0) return;
        console.log(`loading ${listOrders} orders for the list scenarios into ${labels[index]}'s database...`);
        // The current bulk loader on the ref's schema; a ref whose tables it does not fit keeps its demo data.
        await loadListOrders(url.toString(), listOrders).catch((error: unknown) =>
          notes.push(
            `${labels[index]}: no ${listOrders} orders loaded (${String(error)}); its lists read the demo data`,
          ),
        );
      }),
    );
    const standIns = await Promise.all(
      services.map(({ url }) => (url ? autovacuumStandIn(url.toString()) : Promise.resolve(undefined))),
    );
    const { headers, scopedHeaders } = await callers();
    const createRates: (number | undefined)[] = [undefined, undefined];
    const targets = await Promise.all(
      services.map(({ origin, url }, index) =>
        prepareTarget(origin, headers, () => createRates[index], url?.toString()),
      ),
    );
    const lists = targets.map((target) => scenariosOf(target, scopedHeaders).filter(({ name }) => wanted(name)));
    // What each process spends with no request at all (its polls, relays and timers), both idle
    // at once: a build with more background work reads more CPU per request at a low rate.
    const idleSeconds = 5;
    const pids = services.map(({ service }) => service.child.pid!);
    const idleBefore = await Promise.all(pids.map(cpuMs));
    await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1_000));
    const idleAfter = await Promise.all(pids.map(cpuMs));
    notes.push(
      `idle, both at once for ${idleSeconds} s: ` +
        labels
          .map(
            (label, index) =>
              `${label} ${Math.round((idleAfter[index]! - idleBefore[index]!) / idleSeconds)} ms of CPU/s`,
          )
          .join(', '),
    );
    let roundMs = 0;
    for (let round = 0; round < rounds; round += 1) {
      // Another round only when it fits in the bound, as long as the last one took, with a minute to clean up.
      if (round > 0 && Date.now() + roundMs + 60_000 > deadline) {
        notes.push(`${round} of ${rounds} rounds: the next would not have fitted in ${minutes} min`);
        break;
      }
      const roundStarted = Date.now();
      for (const [at, scenario] of lists[0]!.entries()) {
        for (const index of round % 2 === 0 ? [0, 1] : [1, 0]) {
          const figures = measured.get(scenario.name) ?? [[], []];
          measured.set(scenario.name, figures);
          await standIns[index]?.settle();
          const result = await runScenario(
            targets[index]!,
            lists[index]![at]!,
            services[index]!.service.child.pid,
            false,
          )
            .then(({ result: { rps, p99, cpuUs, failed, answered, failures } }) => {
              if (failures) notes.push(`${labels[index]}, '${scenario.name}', round ${round + 1}: ${failures}`);
              return { rps, p99, cpuUs, failed, answered };
            })
            .catch((error: unknown) => {
              notes.push(`${labels[index]}, '${scenario.name}', round ${round + 1}: ${String(error).slice(0, 300)}`);
              return { rps: 0, p99: null, cpuUs: null, failed: 1, answered: 0 };
            });
          figures[index]!.push(result);
          if (scenario.name === CREATE_ROW) createRates[index] = result.rps;
        }
      }
      roundMs = Date.now() - roundStarted;
    }
    standIns.forEach((standIn, index) => {
      const line = standIn?.describe();
      if (line) notes.push(`${labels[index]}'s database: ${line}`);
    });
  } finally {
    clearTimeout(bound);
    await cleanUp();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }

  const table = [...measured].flatMap(([scenario, [current, other]]) => {
    const { rps, cpu, verdict } = compareRounds(current, other);
    const row = (build: string, series: Round[]) => ({
      scenario,
      build,
      'req/s': roundsText(series, (each) => each.rps),
      'p99 ms': roundsText(series, (each) => each.p99),
      'CPU µs/req': roundsText(series, (each) => each.cpuUs),
      failed: series.reduce((sum, each) => sum + each.failed, 0),
    });
    return [
      {
        ...row(labels[0], current),
        'current / ref':
          `req/s ${rps === null ? '-' : rps.toFixed(2)} x, CPU ${cpu === null ? '-' : cpu.toFixed(2)} x: ` + verdict,
      },
      { ...row(labels[1], other), 'current / ref': '' },
    ];
  });
  console.log(
    `\n${seconds} s per scenario and round, ${connections} connections, rounds interleaved (each round's figures in ` +
      `the order they ran), database: ${serverUrl ? `PostgreSQL server, ${listOrders} orders each` : 'embedded PGlite'}, node ${process.version}\n`,
  );
  console.table(table);
  for (const note of notes) console.log(`note: ${note}`);
  // A slower figure fails nothing; a current route that mostly fails is broken (the ref's may not exist yet).
  const broken = [...measured].filter(([, [current]]) => {
    const answered = current.reduce((sum, each) => sum + each.answered, 0);
    return answered === 0 || current.reduce((sum, each) => sum + each.failed, 0) * 2 > answered;
  });
  for (const [scenario] of broken) console.error(`broken: '${scenario}' mostly failed on the current build`);
  if (broken.length > 0) process.exitCode = 1;
};

await (againstRef ? mainAgainst(againstRef) : main());
