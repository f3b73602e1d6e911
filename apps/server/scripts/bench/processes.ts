/**
 * The processes a `pnpm bench` run starts (the service, the baselines and floors) and what it
 * reads of them: peak resident memory and CPU time, from Linux /proc; and the databases it
 * talks to directly.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';

import pg from 'pg';

import { loadBulkOrders } from '../bulk-orders.js';
import { secret, serverRoot } from './options.js';

export const adminQuery = async <Row extends pg.QueryResultRow = pg.QueryResultRow>(url: string, sql: string) => {
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
export const loadListOrders = async (url: string, orders: number) => {
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
export const startProcess = (
  script: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
  cwd = serverRoot,
) => {
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
export const profileArgs = process.env.BENCH_CPU_PROF
  ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`]
  : [];

/** The built service of `root` (this build's apps/server, or another build's for `--against`). */
export const startService = (env: Record<string, string>, nodeArgs: string[] = [], root = serverRoot) =>
  startProcess('dist/main.js', { NODE_OPTIONS: SERVICE_NODE_OPTIONS, ...env }, nodeArgs, root);

/** A process and its children (a cluster's primary and workers), Linux /proc. */
const processTree = async (pid: number): Promise<number[]> => {
  const children = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  return [pid, ...children.split(/\s+/).filter(Boolean).map(Number)];
};

/** Peak resident memory of a cluster while `work` runs: its largest process and its total, in MB. */
export const peakClusterRss = async <T>(pid: number, work: () => Promise<T>) => {
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
export const peakRss = async <T>(
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
export const cpuMs = async (pid: number): Promise<number> => {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

/** Stops a process started here, unless it has exited already, and waits for it to exit. */
export const stopProcess = async (child: ChildProcess) => {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
};
