// A focused run of the per-request overhead (docs/performance.md, "Per-request overhead"):
// the hello-world baseline and POST calculate-totals (no database work), one after the other,
// on the same Node binary, with autocannon. Needs `pnpm build` first and a PostgreSQL server:
//   BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres node scripts/bench-overhead.mjs
// BENCH_SECONDS (default 5), BENCH_CONNECTIONS (default 32), BENCH_CPU_PROF=dir (profiles the service).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
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
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      const entry = JSON.parse(line);
      if (entry.msg === 'listening') resolve(`http://127.0.0.1:${entry.port}`);
    });
  });
  return { child, origin };
};

const stop = async (child) => {
  const exited = once(child, 'exit');
  child.kill('SIGINT');
  await exited;
};

const load = async (url, headers) => {
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
  const hello = await load(`${await baseline.origin}/hello`, {});
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
  const totals = await load(`${origin}/api/sales-orders/calculate-totals`, { authorization: `Bearer ${token}` });
  await stop(service.child);
  console.log(JSON.stringify({ hello, totals, ratio: Math.round((totals.rps / hello.rps) * 100) / 100 }));
} finally {
  await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
}
