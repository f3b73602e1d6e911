/**
 * The database's ceiling for creates: pgbench running the create-order transaction in one
 * series (scripts/pgbench/, a stand-in schema with the writes a create makes), when pgbench and a
 * PostgreSQL server are at hand.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { connections, seconds, serverRoot } from './options.js';
import { adminQuery } from './processes.js';

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
export const pgbenchAnchor = async (
  serverUrl: string,
): Promise<{ tps: number; p50: number; p99: number } | undefined> => {
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
