// A focused run of the per-request overhead (docs/performance.md, "Per-request overhead"):
// the hello-world baseline and POST calculate-totals (no database work), one after the other,
// on the same Node binary, with autocannon. Needs `pnpm build` first and a PostgreSQL server:
//   BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres node scripts/bench-overhead.mjs
// BENCH_SECONDS (default 5), BENCH_CONNECTIONS (default 32), BENCH_CPU_PROF=dir (profiles the service).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

import autocannon from 'autocannon';
import { SignJWT } from 'jose';
import pg from 'pg';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const secret = 'bench-only-secret-for-hs256-tokens-0123456789';

const start = (script, env, nodeArgs = []) => {
  const child = spawn(process.execPath, [...nodeArgs, script], {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_MINUTE: '1000000',
      JWT_SECRET: secret,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const origin = new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      if (!line.startsWith('{')) return;
      const entry = JSON.parse(line);
      if (entry.msg !== 'listening') return;
      // From here the log is drained unread: parsing a line per request would take CPU from
      // the load generator, which shares the machine.
      lines.close();
      child.stdout.resume();
      resolve(`http://127.0.0.1:${entry.port}`);
    });
  });
  return { child, origin };
};

const stop = async (child) => {
  const exited = once(child, 'exit');
  child.kill('SIGINT');
  await exited;
};

/** CPU time (user + system) a process has used, in ms (Linux /proc; clock ticks of 10 ms). */
const cpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

const load = async (url, headers, pid) => {
  const cpuBefore = cpuMs(pid);
  const body = JSON.stringify({
    details: [
      { product_id: 1, packsize_id: 1, quantity: 3, rate: 33.333 },
      { product_id: 2, quantity: 2, rate: 10 },
      { product_id: 3, quantity: 1, rate: 5.5 },
      { product_id: 5, quantity: 7, rate: 1.25 },
      { product_id: 6, quantity: 0.5, rate: 1260 },
    ],
    other_charges: [{ amount: 150 }],
  });
  const result = await autocannon({
    url,
    method: 'POST',
    connections,
    duration: seconds,
    headers: { ...headers, 'content-type': 'application/json' },
    body,
  });
  return {
    rps: Math.round(result.requests.average),
    // Less sensitive to other load on the machine than req/s: the server's CPU per request.
    cpuUsPerRequest: Math.round(((cpuMs(pid) - cpuBefore) * 1000) / result.requests.total),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
};

const admin = async (sql) => {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
};

const database = `so_overhead_${Date.now().toString(36)}`;
await admin(`CREATE DATABASE "${database}"`);
try {
  const baseline = start('scripts/bench-baseline.mjs', {});
  const hello = await load(`${await baseline.origin}/hello`, {}, baseline.child.pid);
  baseline.child.kill('SIGTERM');
  await once(baseline.child, 'exit');

  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const service = start('dist/main.js', { DATABASE_URL: url.toString(), SEED_DEMO_DATA: 'always' }, profile);
  const origin = await service.origin;
  const token = await new SignJWT({ permissions: ['*'] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('bench')
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(secret));
  const totals = await load(
    `${origin}/api/sales-orders/calculate-totals`,
    { authorization: `Bearer ${token}` },
    service.child.pid,
  );
  await stop(service.child);
  const round = (value) => Math.round(value * 100) / 100;
  console.log(
    JSON.stringify({
      hello,
      totals,
      ratio: round(totals.rps / hello.rps),
      cpuRatio: round(hello.cpuUsPerRequest / totals.cpuUsPerRequest),
    }),
  );
} finally {
  await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
}
