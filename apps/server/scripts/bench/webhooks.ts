import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { createBody } from './bodies.js';
import type { Scenario } from './rows.js';

/**
 * The webhook side of `pnpm bench`: the 5-line create again with one enabled webhook endpoint
 * (read as a cost against the create without), a receiver on loopback that notes when each
 * order's first delivery arrived, and the figures read from it.
 */

export const webhookScenario = (origin: string): Scenario => ({
  name: 'POST order (5 lines, server numbering, one series) + 1 webhook endpoint',
  against: 'create',
  method: 'POST',
  url: `${origin}/api/sales-orders`,
  body: createBody,
  webhook: true,
});

export interface BenchReceiver {
  url: string;
  /** When (performance.now()) each order's first delivery arrived, by order id. */
  firstReceipt: Map<number, number>;
  /** Every receipt's time, in arrival order. */
  receipts: number[];
  close(): Promise<void>;
}

export const startBenchReceiver = async (): Promise<BenchReceiver> => {
  const firstReceipt = new Map<number, number>();
  const receipts: number[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      receipts.push(at);
      const { data } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { sales_order_id: number } };
      if (!firstReceipt.has(data.sales_order_id)) firstReceipt.set(data.sales_order_id, at);
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/bench`,
    firstReceipt,
    receipts,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
};

export interface WebhookFigures {
  /** Creates answered 201 during the load (requests still running at its end also commit). */
  expected: number;
  /** Orders whose event arrived. */
  delivered: number;
  /** Receipts beyond one per order: at-least-once deliveries sent twice. */
  duplicates: number;
  deliveriesPerSecond: number;
  p50: number;
  p99: number;
  probes: number;
}

const PROBES = 100;
const DRAIN_TIMEOUT_MS = 60_000;

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? Number.NaN : Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!);

/**
 * Waits for the load's `created` orders to be delivered (deliveries per second: receipts over the
 * time from the first to the last), then times PROBES creates one at a time: from the create's
 * 201, which the service sends after the commit, to the receipt of its event. That is the
 * commit-to-receipt latency plus the 201's way back, a millisecond on loopback; a receipt that
 * beats the 201 counts as 0.
 */
export const webhookLatency = async (
  receiver: BenchReceiver,
  { created, create }: { created: number; create: () => Promise<number> },
): Promise<WebhookFigures> => {
  const drainStarted = Date.now();
  while (receiver.receipts.length < created && Date.now() - drainStarted < DRAIN_TIMEOUT_MS) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const delivered = receiver.firstReceipt.size;
  const duplicates = receiver.receipts.length - delivered;
  const span = (receiver.receipts.at(-1)! - receiver.receipts[0]!) / 1000;
  const latencies: number[] = [];
  for (let probe = 0; probe < PROBES; probe += 1) {
    const id = await create();
    const committed = performance.now();
    const started = Date.now();
    while (!receiver.firstReceipt.has(id) && Date.now() - started < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const at = receiver.firstReceipt.get(id);
    if (at !== undefined) latencies.push(Math.max(0, at - committed));
  }
  latencies.sort((a, b) => a - b);
  return {
    expected: created,
    delivered,
    duplicates,
    deliveriesPerSecond: span > 0 ? Math.round(receiver.receipts.length / span) : receiver.receipts.length,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    probes: latencies.length,
  };
};

export const describeWebhooks = ({
  deliveriesPerSecond,
  delivered,
  duplicates,
  expected,
  p50,
  p99,
  probes,
}: WebhookFigures) =>
  `webhooks: events of ${delivered} orders received (${expected} creates answered 201, ${duplicates} sent twice), ` +
  `${deliveriesPerSecond} deliveries/s from the first receipt to the last; ` +
  `commit -> receipt p50 ${p50} ms, p99 ${p99} ms (${probes} creates one at a time)`;
