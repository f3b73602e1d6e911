/**
 * The concurrent bursts for `pnpm bench`: 200 creates in one series at once,
 * and 200 confirms at once of drafts sharing a product whose licence limits it to 150 units, on
 * one service process with the default pool (10 connections). Every request is sent at the same
 * moment, no connection limit; the figures are each status's count (a refusal with its detail
 * code) and the p50/p99 of the requests' latencies. Target: only 2xx and 422, none 503.
 */
import { createBody } from './bodies.js';
import type { Run } from './run.js';

export interface BurstFigures {
  name: string;
  /** Answers by status, a 5xx with its detail code (e.g. `503 overloaded`). */
  statuses: Record<string, number>;
  p50: number;
  p99: number;
  /** From the first request sent to the last answer. */
  totalMs: number;
}

const percentile = (sorted: number[], share: number) => sorted[Math.max(0, Math.ceil(sorted.length * share) - 1)] ?? 0;

/** Sends every request at once and waits for every answer. */
export const burst = async (name: string, requests: (() => Promise<Response>)[]): Promise<BurstFigures> => {
  const started = performance.now();
  const answers = await Promise.all(
    requests.map(async (send) => {
      const sent = performance.now();
      const response = await send();
      const body = (await response.json().catch(() => ({}))) as { error?: { details?: { code?: string }[] } };
      const key =
        response.status >= 500 ? `${response.status} ${body.error?.details?.[0]?.code}` : String(response.status);
      return { key, ms: performance.now() - sent };
    }),
  );
  const latencies = answers.map((answer) => answer.ms).sort((a, b) => a - b);
  const statuses: Record<string, number> = {};
  for (const { key } of answers) statuses[key] = (statuses[key] ?? 0) + 1;
  return {
    name,
    statuses,
    p50: Math.round(percentile(latencies, 0.5)),
    p99: Math.round(percentile(latencies, 0.99)),
    totalMs: Math.round(performance.now() - started),
  };
};

export const describeBurst = ({ name, statuses, p50, p99, totalMs }: BurstFigures): string =>
  `${name}: ${Object.entries(statuses)
    .map(([status, count]) => `${count} x ${status}`)
    .join(', ')}; p50 ${p50} ms, p99 ${p99} ms, all answered in ${totalMs} ms`;

/** Both bursts on the run's one service process and its default pool; none may be 503. */
export const runBursts = async ({
  standIn,
  target: { origin, headers, createOrder },
}: Run): Promise<BurstFigures[]> => {
  const post = (url: string, body: unknown) => () =>
    fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  await standIn?.settle();
  const creates = await burst(
    'burst: 200 concurrent creates, one series',
    Array.from({ length: 200 }, () => post(`${origin}/api/sales-orders`, createBody)),
  );
  // The demo data's product 2 is licensed for 150 units: the confirms past them answer 422.
  const drafts: number[] = [];
  for (let start = 0; start < 200; start += 10) {
    drafts.push(
      ...(await Promise.all(
        Array.from({ length: 10 }, () =>
          createOrder({ ...createBody, details: [{ product_id: 2, quantity: 1, rate: 10 }] }),
        ),
      )),
    );
  }
  const confirms = await burst(
    'burst: 200 concurrent confirms sharing a limited product',
    drafts.map((id) => post(`${origin}/api/sales-orders/${id}/confirm`, {})),
  );
  return [creates, confirms];
};
