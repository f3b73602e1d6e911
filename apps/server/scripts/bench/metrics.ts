/**
 * GET order (5 lines) with metrics (a PostgreSQL server only: the embedded database is one
 * process's): the same read on a second process of the same build and database with
 * METRICS_PORT set, scraped every second as a busy Prometheus would (the usual interval is 15 s),
 * read against the row without: the cost of measuring every request. The first process idles.
 */
import { measure } from './load.js';
import { startService, stopProcess } from './processes.js';
import type { Run } from './run.js';

export const METRICS_ROW = 'GET order (5 lines) with metrics';

export const runMetrics = async ({ rows, env, standIn, target: { headers, orderId } }: Run) => {
  const measuredService = startService({ ...env, SEED_DEMO_DATA: 'never', METRICS_PORT: '0' });
  try {
    const measuredOrigin = await measuredService.origin;
    const metricsUrl = `http://127.0.0.1:${measuredService.metricsPort()}/metrics`;
    const scrapes = setInterval(() => void fetch(metricsUrl).then((response) => response.text()), 1_000);
    try {
      const read = { method: 'GET' as const, url: `${measuredOrigin}/api/sales-orders/${orderId}`, headers };
      await standIn?.settle();
      // A fresh process: load() warms it up as long as a process's first read.
      rows.push({ scenario: METRICS_ROW, ...(await measure(measuredService.child.pid, read)), against: 'metrics' });
    } finally {
      clearInterval(scrapes);
    }
  } finally {
    await stopProcess(measuredService.child);
  }
};
