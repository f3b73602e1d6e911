/**
 * `pnpm bench` on this build: the baselines, the single service's scenarios and the rows beside
 * them (floors, bursts, the import, metrics, two workers, reports), then the table (report.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { type AutovacuumStandIn, autovacuumStandIn } from './autovacuum.js';
import { fiveLines } from './bodies.js';
import { type AloneLatencies, BULK_ROW, bulkAlone } from './bulk.js';
import { type BurstFigures, runBursts } from './burst.js';
import { runCluster } from './cluster.js';
import { runFloors, runPgFloors } from './floors.js';
import { runImport } from './import.js';
import { measure } from './load.js';
import { METRICS_ROW, runMetrics } from './metrics.js';
import { listOrders, wanted } from './options.js';
import { pgbenchAnchor } from './pgbench.js';
import { adminQuery, loadListOrders, profileArgs, startProcess, startService, stopProcess } from './processes.js';
import { type Figures, printFigures } from './report.js';
import { describeReports, REPORT_SCENARIOS, type ReportFigures, runReports } from './reports.js';
import { CREATE_ROW, type Row } from './rows.js';
import type { Run } from './run.js';
import { scenariosOf } from './scenarios.js';
import { callers, prepareTarget, runScenario } from './target.js';
import type { WebhookFigures } from './webhooks.js';

/** Express 4 hello world with JSON parsing (scripts/bench-baseline.mjs): the first row. */
const measureBaseline = async (rows: Row[]) => {
  const baseline = startProcess('scripts/bench-baseline.mjs', {});
  try {
    const origin = await baseline.origin;
    const request = { url: `${origin}/hello`, method: 'POST' as const, body: { details: fiveLines } };
    rows.push({
      scenario: 'baseline: Express hello world, JSON in and out',
      ...(await measure(baseline.child.pid, request)),
      against: null,
    });
  } finally {
    await stopProcess(baseline.child);
  }
};

/**
 * The service's database: a throwaway one on the PostgreSQL server at `serverUrl` (with the
 * autovacuum stand-in), or the embedded one in `dataDir`; the service's environment for it.
 */
const openDatabase = async (serverUrl: string | undefined, benchDatabase: string, dataDir: string | undefined) => {
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
  return { env, standIn };
};

/** Every wanted scenario of the single service, in turn: the webhook row's figures, if it ran. */
const runScenarios = async (run: Run, scopedHeaders: Record<string, string>) => {
  let webhookFigures: WebhookFigures | undefined;
  const scenarios = scenariosOf(run.target, scopedHeaders);
  for (const scenario of scenarios.filter(({ name }) => wanted(name))) {
    await run.standIn?.settle();
    const measured = await runScenario(run.target, scenario, run.service.child.pid);
    const { name, against, floor, pgFloor, unscoped, floorTarget, cpuCap, history, bound } = scenario;
    run.rows.push({
      scenario: name,
      ...measured.result,
      rssMb: measured.rssMb,
      against,
      floor,
      pgFloor,
      unscoped,
      floorTarget,
      cpuCap,
      history,
      bound,
    });
    webhookFigures = measured.webhookFigures ?? webhookFigures;
  }
  return { scenarios, webhookFigures };
};

/** The rows beside the scenarios, each when wanted: bulk calls alone, bursts, the import, metrics, workers, reports. */
const runBeside = async (run: Run, scenarios: Parameters<typeof runCluster>[1]) => {
  const { serverUrl, standIn, target } = run;
  let aloneLatencies: AloneLatencies | undefined;
  let bursts: BurstFigures[] = [];
  let importLine: string | undefined;
  let reportFigures: ReportFigures[] = [];
  if (wanted(BULK_ROW)) {
    await standIn?.settle();
    aloneLatencies = await bulkAlone(target.origin, target.setupCall);
  }
  if (wanted('burst')) bursts = await runBursts(run);
  if (wanted('import')) importLine = await runImport(run);
  if (serverUrl && wanted(METRICS_ROW)) await runMetrics(run);
  if (serverUrl) await runCluster(run, scenarios);
  if (serverUrl && listOrders > 0 && REPORT_SCENARIOS.some(({ name }) => wanted(name)))
    reportFigures = await runReports(run);
  return { aloneLatencies, bursts, importLine, reportLines: describeReports(reportFigures) };
};

export const main = async () => {
  const serverUrl = process.env.BENCH_DATABASE_URL;
  const dataDir = serverUrl ? undefined : await mkdtemp(path.join(tmpdir(), 'sales-orders-bench-'));
  const benchDatabase = `so_bench_${Date.now().toString(36)}`;
  const rows: Row[] = [];
  await measureBaseline(rows);
  const anchor = serverUrl ? await pgbenchAnchor(serverUrl) : undefined;
  const { env, standIn } = await openDatabase(serverUrl, benchDatabase, dataDir);
  const service = startService(env, profileArgs);
  let figures: Figures;
  try {
    const origin = await service.origin;
    if (serverUrl && listOrders > 0) {
      console.log(`loading ${listOrders} orders for the list scenarios...`);
      await loadListOrders(env.DATABASE_URL!, listOrders);
    }
    const { headers, scopedHeaders } = await callers();
    // The create row's rate, once measured: how many drafts a confirm row needs.
    const target = await prepareTarget(
      origin,
      headers,
      () => rows.find((row) => row.scenario === CREATE_ROW)?.rps,
      serverUrl ? env.DATABASE_URL : undefined,
    );
    const run: Run = { rows, serverUrl, env, standIn, service, target };
    await runFloors(run);
    await runPgFloors(run);
    const { scenarios, webhookFigures } = await runScenarios(run, scopedHeaders);
    const beside = await runBeside(run, scenarios);
    figures = { rows, anchor, serverUrl, webhookFigures, ...beside };
  } finally {
    await stopProcess(service.child);
    if (serverUrl) await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${benchDatabase}" WITH (FORCE)`);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }
  printFigures({ ...figures, standInLine: standIn?.describe() });
};
