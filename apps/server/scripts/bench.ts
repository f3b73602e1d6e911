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
 * This file is the command line; scripts/bench/ holds the run (main.ts, against-run.ts), one file
 * per scenario or family of rows (create.ts, list.ts, read.ts, confirm.ts, bulk.ts, import.ts,
 * webhooks.ts, reports.ts, licence.ts, ...) and the table (report.ts).
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
 *   pnpm bench --against HEAD~20             # that build's server beside this one, interleaved rounds (bench/against-run.ts)
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
 * per second while they drain, and the latency from commit to receipt (see bench/webhooks.ts).
 *
 * Bursts (scripts/bench/burst.ts): 200 creates of one series at once, then 200 confirms at once
 * of drafts sharing a product licensed for 150 units, on the one service process with its
 * default pool: the answers by status (none may be 503) and their p50/p99.
 *
 * Licence history (scripts/bench/licence.ts, a PostgreSQL server only): confirms of one-line
 * drafts of a limited product whose licence window holds 1,000 confirmed lines, then 1,000,000
 * (loaded in SQL before the row): the larger history's cost (the smaller's req/s over its own) at
 * most 1.2 x, as the licence check reads running totals, not the lines
 * (`pnpm bench --only 'licence window'`, with BENCH_LIST_ORDERS=0 to skip the list's orders).
 *
 * Deliveries (scripts/bench/deliveries.ts): POST deliveries of 5 lines on confirmed 5-line orders
 * (made before the row), bound at 1.5 x the 5-line create's CPU per request; then GET order of a
 * confirmed 5-line order without deliveries and of one with 10, back to back, the second bound at
 * 1.3 x the first's cost (`pnpm bench --only 'one series)$,deliver'`).
 *
 * Import (scripts/bench/import.ts): a CSV of BENCH_IMPORT_ORDERS (10,000) orders of the create
 * row's five lines in one series, imported alone: its orders per second from the upload to
 * `completed` (read against the 5-line create's req/s and the bulk rows'); then the same file
 * again with GET order driven as its idle row while it runs, that row's p99 read against the
 * idle row's (target: within 2 x; the import gives way to requests meanwhile, so its rate
 * then is printed, not compared); the load average beside them.
 */

import { mainAgainst } from './bench/against-run.js';
import { main } from './bench/main.js';
import { againstRef } from './bench/options.js';

await (againstRef ? mainAgainst(againstRef) : main());
