import cluster, { type Worker } from 'node:cluster';

import { ClusterMemoryStorePrimary } from '@express-rate-limit/cluster-memory-store';

import type { Logger } from '../observability/logger.js';
import type { AppConfig } from './config.js';

/** Environment variable that tells a worker which slot it fills (internal: set by the primary). */
export const WORKER_SLOT_VARIABLE = 'SALES_ORDER_WORKER_SLOT';

/** The slot whose worker runs the background jobs (the idempotency purge), so they run once. */
export const BACKGROUND_JOBS_SLOT = 0;

/** How the primary asks a worker to shut down as a signal to the single process would. */
export type ShutdownMessage = { type: 'shutdown'; signal: 'SIGINT' | 'SIGTERM' };

export const isShutdownMessage = (message: unknown): message is ShutdownMessage =>
  typeof message === 'object' &&
  message !== null &&
  (message as { type?: unknown }).type === 'shutdown' &&
  ['SIGINT', 'SIGTERM'].includes((message as { signal?: unknown }).signal as string);

/** A worker that lived at least this long before dying is replaced at once. */
const STABLE_AFTER_MS = 30_000;
const FIRST_RESTART_DELAY_MS = 1_000;
const MAX_RESTART_DELAY_MS = 30_000;
/** Past the drain and the shutdown timeout, a worker that has not exited is killed. */
const SHUTDOWN_MARGIN_MS = 5_000;

/**
 * The primary of WEB_CONCURRENCY workers (node:cluster), after it has migrated (and seeded)
 * the database: forks one worker per slot, all serving the same port (round robin from here),
 * keeps the rate-limit counts every worker shares when there is no Redis (or while it is
 * away), replaces a worker that dies with a back-off (1 s doubling to 30 s while replacements
 * keep dying young), and on SIGTERM/SIGINT has every worker drain and stop as a single process
 * does, then exits 0 when all of them exited 0. It never serves a request itself.
 */
export const runClusterPrimary = (config: AppConfig, logger: Logger): void => {
  new ClusterMemoryStorePrimary().init();
  const slots = config.webConcurrency;
  const slotOf = new Map<Worker, number>();
  const quickDeaths = new Array<number>(slots).fill(0);
  const restartTimers = new Set<NodeJS.Timeout>();
  let stopping: ShutdownMessage['signal'] | undefined;
  let failedStop = false;
  let announced = false;
  const listening = new Set<number>();

  const fork = (slot: number) => {
    const worker = cluster.fork({ [WORKER_SLOT_VARIABLE]: String(slot) });
    const startedAt = Date.now();
    slotOf.set(worker, slot);
    worker.on('listening', (address) => {
      listening.add(slot);
      if (announced || stopping || listening.size < slots) return;
      announced = true;
      logger.info({ host: config.host, port: address.port, basePath: config.basePath, workers: slots }, 'listening');
    });
    worker.on('exit', (code, signal) => {
      slotOf.delete(worker);
      if (stopping) {
        if (code !== 0) failedStop = true;
        if (slotOf.size === 0) {
          logger.info('stopped');
          process.exit(failedStop ? 1 : 0);
        }
        return;
      }
      quickDeaths[slot] = Date.now() - startedAt < STABLE_AFTER_MS ? quickDeaths[slot]! + 1 : 0;
      const delayMs =
        quickDeaths[slot] === 0
          ? 0
          : Math.min(FIRST_RESTART_DELAY_MS * 2 ** (quickDeaths[slot] - 1), MAX_RESTART_DELAY_MS);
      logger.error({ worker: worker.process.pid, code, signal, delayMs }, 'worker died: starting another');
      const timer = setTimeout(() => {
        restartTimers.delete(timer);
        fork(slot);
      }, delayMs);
      restartTimers.add(timer);
    });
  };

  const stop = (signal: ShutdownMessage['signal']) => {
    if (stopping) return;
    stopping = signal;
    for (const timer of restartTimers) clearTimeout(timer);
    logger.info({ signal, workers: slotOf.size }, 'stopping the workers');
    if (slotOf.size === 0) process.exit(0);
    for (const worker of slotOf.keys()) worker.send({ type: 'shutdown', signal } satisfies ShutdownMessage);
    const drainMs = signal === 'SIGTERM' ? config.shutdown.drainDelayMs : 0;
    setTimeout(
      () => {
        logger.error({ workers: slotOf.size }, 'workers did not stop in time: killing them');
        for (const worker of slotOf.keys()) worker.process.kill('SIGKILL');
      },
      drainMs + config.shutdown.timeoutMs + SHUTDOWN_MARGIN_MS,
    ).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  for (let slot = 0; slot < slots; slot += 1) fork(slot);
};
