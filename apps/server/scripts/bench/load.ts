/**
 * One scenario's load: autocannon driving a route for BENCH_SECONDS (reads after a warm-up),
 * and the figures of a row.
 */
import autocannon from 'autocannon';

import { connections, seconds, warmupSeconds } from './options.js';
import { cpuMs, peakRss } from './processes.js';

/** Origins that have had their first (long) warm-up. */
const warmed = new Set<string>();

export interface Load {
  url: string;
  method: 'GET' | 'POST' | 'PUT';
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * Requests taken in turn instead of `url` and `body` alone (each connection's next request
   * takes the next one): writes that must differ from one request to the next.
   */
  rotate?: { path: string; body: unknown }[];
  /** Connections of this scenario, when not BENCH_CONNECTIONS. */
  connections?: number;
}

/**
 * Drives `url` for the scenario's time. With the serving process's `pid`, also its CPU time per
 * request, which moves far less than req/s when other work shares the machine.
 */
export const load = async ({ url, method, body, headers = {}, rotate, connections: own }: Load, pid?: number) => {
  // A read first runs unmeasured for BENCH_WARMUP_SECONDS, three times as long on a process's
  // first: a process that has not served for long yet is slower (the first read of the service
  // measured 0.64-0.88 x the same read right after it, with 2 s or 6 s of warm-up; 20 s removed
  // the gap). Writes are not warmed: their requests may be consumed (drafts to confirm).
  if (method === 'GET' && warmupSeconds > 0) {
    const { origin } = new URL(url);
    const duration = warmed.has(origin) ? warmupSeconds : 3 * warmupSeconds;
    warmed.add(origin);
    await autocannon({ url, method, connections: own ?? connections, duration, headers });
  }
  const cpuBefore = pid === undefined ? undefined : await cpuMs(pid);
  let turn = 0;
  const rotating = rotate?.map((request) => ({ path: request.path, body: JSON.stringify(request.body) }));
  const result = await autocannon({
    url,
    method,
    connections: own ?? connections,
    duration: seconds,
    headers: { ...headers, ...(body || rotate ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    ...(rotating
      ? {
          requests: [
            {
              method,
              setupRequest: (request: autocannon.Request) => {
                const next = rotating[turn++ % rotating.length]!;
                return { ...request, method, path: next.path, body: next.body };
              },
            },
          ],
        }
      : {}),
  });
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    failed: result.non2xx + result.errors + result.timeouts,
    answered: result.requests.total,
    failures: failureNote(result),
    cpuUs:
      pid === undefined || cpuBefore === undefined
        ? null
        : Math.round((((await cpuMs(pid)) - cpuBefore) * 1000) / result.requests.total),
  };
};

/** What the failed requests were: non-2xx statuses by code, connection errors, timeouts. */
const failureNote = (result: autocannon.Result): string => {
  const statuses = Object.entries(result.statusCodeStats ?? {})
    .filter(([status]) => !status.startsWith('2'))
    .map(([status, { count = 0 }]) => `${count} x ${status}`);
  return [
    ...statuses,
    ...(result.errors > 0 ? [`${result.errors} connection errors`] : []),
    ...(result.timeouts > 0 ? [`${result.timeouts} timeouts`] : []),
  ].join(', ');
};

/** `request`'s load on the process `pid` with that process's peak resident memory meanwhile: a row's figures. */
export const measure = async (pid: number | undefined, request: Load) => {
  const measured = await peakRss(pid, () => load(request, pid));
  return { ...measured.result, rssMb: measured.rssMb };
};
