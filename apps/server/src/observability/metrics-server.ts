import { createServer, type Server } from 'node:http';

import { AggregatorRegistry, type Registry } from 'prom-client';

import { listening } from '../shared/listening.js';
import type { Logger } from './logger.js';

/**
 * The Prometheus scrape endpoint, on METRICS_PORT and METRICS_HOST, apart from the API: a
 * load balancer in front of the API never routes to it, it needs no credentials (Prometheus
 * scrapes without), and it answers nothing but `GET /metrics`. A single process serves its own
 * registry; a cluster's primary asks every worker for theirs and adds them up
 * (prom-client's AggregatorRegistry over the cluster's IPC channel).
 */
export type MetricsSource = { kind: 'registry'; registry: Registry } | { kind: 'cluster' };

export const startMetricsServer = async (
  source: MetricsSource,
  { port, host }: { port: number; host: string },
  logger: Logger,
): Promise<Server> => {
  const aggregator = source.kind === 'cluster' ? new AggregatorRegistry() : undefined;
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics here\n');
      return;
    }
    const metrics = aggregator ? aggregator.clusterMetrics() : (source as { registry: Registry }).registry.metrics();
    metrics.then(
      (text) => {
        res.writeHead(200, { 'content-type': (aggregator ?? (source as { registry: Registry }).registry).contentType });
        res.end(text);
      },
      (error: unknown) => {
        logger.warn({ err: error }, 'metrics scrape failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
      },
    );
  });
  server.listen(port, host);
  await listening(server, { port, host, variable: 'METRICS_PORT', hostVariable: 'METRICS_HOST' });
  const address = server.address();
  logger.info({ host, port: typeof address === 'object' && address ? address.port : port }, 'metrics listening');
  return server;
};

/** A cluster worker hands its registry to the primary's scrapes. */
export const offerToClusterScrapes = (registry: Registry): void => {
  AggregatorRegistry.setRegistries([registry]);
  // prom-client answers the primary's requests once an AggregatorRegistry exists in the worker.
  new AggregatorRegistry();
};
