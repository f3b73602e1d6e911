import { setTimeout as sleep } from 'node:timers/promises';

import gracefulShutdown from 'http-graceful-shutdown';

import { openDatabase } from '../db/database.js';
import { ensureDemoApiKey, savedDemoApiKey } from '../demo/demo-api-key.js';
import { ensureDemoSession, signInUrl } from '../demo/demo-session.js';
import { seedDemoData } from '../demo/seed.js';
import { startEventProcessing } from '../events/event-processing.js';
import { closeRedis, connectRedis } from '../http/redis-client.js';
import { startIdempotencyPurge } from '../idempotency/idempotency-purge.js';
import { startUploadPurge } from '../imports/upload-purge.js';
import { startJobQueue } from '../jobs/job-queue.js';
import { startLicenceHoldingsJobs } from '../licences/licence-holdings-jobs.js';
import type { Logger } from '../observability/logger.js';
import { createMetrics, noMetrics } from '../observability/metrics.js';
import { offerToClusterScrapes, startMetricsServer } from '../observability/metrics-server.js';
import { todayIn } from '../shared/calendar.js';
import { listening } from '../shared/listening.js';
import { createApp } from './app.js';
import { BACKGROUND_JOBS_SLOT, isShutdownMessage, type ShutdownMessage } from './cluster-primary.js';
import type { AppConfig } from './config.js';
import { createHttpServer } from './http-server.js';
import { seedWantedFor } from './prepare-database.js';
import { printStartStep } from './start-progress.js';

/**
 * Serves HTTP: as the single process (stops on signals; runs the background jobs), or as
 * cluster worker `slot` (stops when its primary says so; runs the background jobs in
 * BACKGROUND_JOBS_SLOT only). Unless `prepared` (migrated and seeded by a process of its own,
 * see prepare-database.ts), migrates and seeds first.
 */
export const serve = async (
  config: AppConfig,
  logger: Logger,
  {
    worker,
    prepared = false,
    flushTelemetry,
  }: { worker?: { slot: number }; prepared?: boolean; flushTelemetry?: () => Promise<void> } = {},
) => {
  // A worker may be told to stop while it is still starting: remembered, acted on once it can.
  let stop: ((signal: ShutdownMessage['signal']) => void) | undefined;
  let stopAsked: ShutdownMessage['signal'] | undefined;
  if (worker) {
    const ask = (signal: ShutdownMessage['signal']) => {
      stopAsked ??= signal;
      stop?.(stopAsked);
    };
    process.on('message', (message) => {
      if (isShutdownMessage(message)) ask(message.signal);
    });
    process.on('SIGTERM', () => ask('SIGTERM'));
    process.on('SIGINT', () => {});
  }
  const database = await openDatabase(config, {
    log: (message) => logger.info(message),
    ...(worker ? {} : { progress: printStartStep }),
    logger,
    migrate: !prepared,
  });
  logger.info(
    database.embedded ? { dataDir: config.database.dataDir } : { database: 'server' },
    database.embedded ? 'using the embedded database' : 'using the PostgreSQL server from DATABASE_URL',
  );

  const seedWanted = !prepared && seedWantedFor(config, database.embedded);
  if (seedWanted) {
    const seeding = performance.now();
    const result = await seedDemoData(database.prisma, todayIn(config.businessTimeZone));
    if (result.seeded) {
      logger.info({ counts: result.counts }, 'loaded demo data');
      printStartStep('loaded the demo data', performance.now() - seeding);
    }
  }
  const demoKeyPlace = { dataDir: config.database.dataDir, databaseUrl: config.database.url };
  // The embedded database with demo data always has a demo key; a PostgreSQL server only when
  // the start that loaded the demo data into it made one (prepare-database.ts).
  const demoKey = database.embedded
    ? seedWanted
      ? await ensureDemoApiKey(database.prisma, demoKeyPlace)
      : undefined
    : config.seedDemoData === 'always' && !worker
      ? await savedDemoApiKey(database.prisma, demoKeyPlace)
      : undefined;

  const demoSession =
    database.embedded && seedWanted && config.orderEntry.signIn
      ? await ensureDemoSession(database.prisma, config.database.dataDir)
      : undefined;

  const redis = config.redisUrl ? connectRedis(config.redisUrl, logger) : undefined;
  // Periodic jobs run in one process of a cluster, not once per worker; every worker relays
  // events and sends webhooks (they share that work through the database).
  const runsPeriodicJobs = worker === undefined || worker.slot === BACKGROUND_JOBS_SLOT;
  const metrics = config.metrics ? createMetrics({ pool: database.pool }) : noMetrics;
  // The job queue (pg-boss) of the webhook deliveries and the imports' chunks, in every process.
  const jobs = await startJobQueue(database, logger);
  const events = await startEventProcessing(database, config, { jobs, logger, purge: runsPeriodicJobs, metrics });
  let draining = false;
  const app = createApp({ config, logger, database, events, jobs, redis, isDraining: () => draining, metrics });
  // A cluster's primary answers the scrapes with every worker's counts; a single process itself.
  const metricsServer =
    config.metrics && metrics.registry
      ? worker
        ? void offerToClusterScrapes(metrics.registry)
        : await startMetricsServer({ kind: 'registry', registry: metrics.registry }, config.metrics, logger)
      : undefined;
  const idempotencyPurge = runsPeriodicJobs
    ? startIdempotencyPurge(database.prisma, { intervalSeconds: config.idempotency.purgeIntervalSeconds, logger })
    : undefined;
  const uploadPurge = runsPeriodicJobs ? startUploadPurge(database.prisma, logger) : undefined;
  const licenceHoldings = runsPeriodicJobs
    ? startLicenceHoldingsJobs(database.prisma, { ...config.licenceHoldings, logger, metrics })
    : undefined;
  const server = createHttpServer(app, config, logger).listen(config.port, config.host);
  await listening(server, { port: config.port, host: config.host, variable: 'PORT', hostVariable: 'HOST' });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  // The banner below, for the person at the terminal; the log line says whether it follows.
  const banner = database.embedded || demoKey !== undefined;
  // A cluster's primary says 'listening' once every worker does.
  logger.info(
    { host: config.host, port, basePath: config.basePath, banner },
    worker ? 'worker listening' : 'listening',
  );
  if (banner) {
    // Plain text for the person at the terminal, on stderr: stdout carries only the JSON log
    // lines (which never hold a key), so that a log collector reading it never meets the banner
    // and the key (docs/decisions/start-up-banner-on-stderr.md).
    const base = `http://${config.host}:${port}${config.basePath}`;
    const howToCall = demoKey
      ? [
          `  demo API key${demoKey.file ? ` (kept in ${demoKey.file})` : ''}:`,
          `    Authorization: ApiKey ${demoKey.key}`,
          `  try: curl -H "Authorization: ApiKey ${demoKey.key}" ${base}/sales-orders/1`,
        ]
      : [
          `  no demo key (SEED_DEMO_DATA=never); stop the service, then: pnpm api-key create --name me --permissions '*'`,
        ];
    const origin = `http://${config.host}:${port}`;
    const page = config.orderEntry.page
      ? [
          `  order entry page: ${origin}/order-entry/`,
          ...(demoSession
            ? [`    sign in as the demo user (or run pnpm order-entry): ${signInUrl(origin, demoSession)}`]
            : []),
        ]
      : [];
    console.error(['', `Sales order service on ${base}`, ...howToCall, ...page, ''].join('\n'));
  }

  // SIGTERM (an orchestrator): /readyz turns 503 first and everything is still served for
  // SHUTDOWN_DRAIN_DELAY_MS, while the load balancer stops sending; then the server stops
  // accepting, in-flight requests finish (up to SHUTDOWN_TIMEOUT_MS) and the pool closes.
  // SIGINT (a person at a terminal) skips the drain. A worker hears the signal from its
  // primary (a terminal's Ctrl+C also reaches workers directly: that one is left to the primary).
  let signalled: ShutdownMessage['signal'] = 'SIGTERM';
  const shutdown = gracefulShutdown(server, {
    signals: worker ? '' : 'SIGINT SIGTERM',
    timeout: config.shutdown.timeoutMs,
    development: false,
    forceExit: true,
    preShutdown: async (received) => {
      draining = true;
      const signal = worker ? signalled : received;
      if (signal !== 'SIGTERM' || config.shutdown.drainDelayMs === 0) return;
      logger.info(
        { signal, drainDelayMs: config.shutdown.drainDelayMs },
        'draining: /readyz answers 503, requests are still served',
      );
      await sleep(config.shutdown.drainDelayMs);
    },
    onShutdown: async (received) => {
      logger.info({ signal: worker ? signalled : received }, 'shutting down: finishing in-flight requests');
      await idempotencyPurge?.stop();
      await uploadPurge?.stop();
      await licenceHoldings?.stop();
      metricsServer?.close();
      // Nothing more is queued, then the jobs under way end (a delivery or a chunk cut short here
      // runs again once its lease runs out).
      await events.stop();
      await jobs.stop();
      await database.close();
      if (redis) await closeRedis(redis);
      // The last spans (the shutdown's own requests among them) leave before the process does.
      await flushTelemetry?.().catch((error: unknown) => logger.warn({ err: error }, 'flushing traces failed'));
    },
    finally: () => logger.info('stopped'),
  });
  if (worker) {
    stop = (signal) => {
      signalled = signal;
      // Called by hand, the library does not exit by itself as it does on a signal.
      shutdown().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    if (stopAsked) stop(stopAsked);
  }
};
