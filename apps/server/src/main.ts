import { fork } from 'node:child_process';
import cluster from 'node:cluster';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { createLogger } from './observability/logger.js';
import { StartupProblem } from './shared/listening.js';
import { ConfigError, loadConfig } from './startup/config.js';
import { nodeVersionWarning } from './startup/node-version.js';
import { PREPARE_EXIT_REPORTED } from './startup/prepare-exit.js';

/**
 * prepare-database.ts (migrations, demo data) in a short-lived process of its own, with the same
 * environment and Node flags, so that no serving process loads the migration engine's WASM (it
 * stays resident once loaded: about 60 MB) and a cluster's workers never race the migrations.
 */
const prepareDatabaseInChildProcess = async (): Promise<void> => {
  const self = fileURLToPath(import.meta.url);
  const child = fork(path.join(path.dirname(self), 'startup', `prepare-database${path.extname(self)}`), [], {
    stdio: 'inherit',
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  // It said why itself, in one line (a missing database): nothing to add.
  if (code === PREPARE_EXIT_REPORTED) process.exit(1);
  if (code !== 0) throw new Error('preparing the database (migrations, demo data) failed: see the log above');
};

/**
 * Starts the service: configuration, database (migrated, seeded when wanted), HTTP, in one
 * process (WEB_CONCURRENCY=1) or in a node:cluster primary and its workers. The serving code is
 * imported only where it runs, so that a cluster's primary stays small.
 */
const main = async () => {
  const config = loadConfig();
  // Before anything it would trace is imported: the serving code is imported below.
  const tracing = config.tracing
    ? await (await import('./observability/tracing.js')).startTracing(config.tracing)
    : undefined;
  const flushTelemetry = tracing ? () => tracing.shutdown() : undefined;
  const logger = createLogger(config.logLevel, undefined, { traceIds: config.tracing !== undefined });
  if (cluster.isWorker) {
    const [{ serve }, { WORKER_SLOT_VARIABLE }] = await Promise.all([
      import('./startup/serve.js'),
      import('./startup/cluster-primary.js'),
    ]);
    // The pid tells the workers' lines apart.
    await serve(config, logger.child({ pid: process.pid }), {
      worker: { slot: Number(process.env[WORKER_SLOT_VARIABLE]) },
      prepared: true,
      flushTelemetry,
    });
    return;
  }
  // Once, by the process the operator started, beside (not in) the JSON log.
  const warning = nodeVersionWarning(process.version);
  if (warning) console.error(warning);
  // On a PostgreSQL server, migrations and the demo data run in a process of their own, once;
  // the embedded database lives in the serving process, which prepares it itself.
  const prepared = config.database.url !== undefined;
  if (prepared) await prepareDatabaseInChildProcess();
  if (config.webConcurrency === 1) {
    const { serve } = await import('./startup/serve.js');
    await serve(config, logger, { prepared, flushTelemetry });
    return;
  }
  const { runClusterPrimary } = await import('./startup/cluster-primary.js');
  const primaryLogger = logger.child({ pid: process.pid });
  primaryLogger.info({ workers: config.webConcurrency }, 'starting the workers');
  // The primary answers the scrapes, gathering every worker's counts.
  if (config.metrics) {
    const { startMetricsServer } = await import('./observability/metrics-server.js');
    await startMetricsServer({ kind: 'cluster' }, config.metrics, primaryLogger);
  }
  runClusterPrimary(config, primaryLogger);
};

main().catch((error: unknown) => {
  // A configuration error already names every bad variable, a start-up problem what to change;
  // anything else gets a lead-in.
  if (error instanceof ConfigError || error instanceof StartupProblem) console.error(error.message);
  else console.error('The service failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
