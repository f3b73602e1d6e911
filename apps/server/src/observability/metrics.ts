import type { RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The service's metrics, in the Prometheus text format (prom-client), named after the
 * OpenTelemetry semantic conventions: `http_server_request_duration_seconds` with
 * `http_request_method`, `http_route` (the route's template, never an id or a raw path) and
 * `http_response_status_code`, requests in flight, the database pool, and the service's own
 * counts. Off unless METRICS_PORT is set (`noMetrics`: every call a no-op, no middleware).
 *
 * Other modules add their series through `counter` and `gauge` (the events' outbox depth, the
 * oldest undelivered event, deliveries by outcome), so that everything is in one registry that
 * a cluster's primary can gather from its workers (metrics-server.ts).
 */

/** The label of a request no route matched: unknown paths must not each make a series. */
export const UNMATCHED_ROUTE = '(unmatched)';

export interface MetricCounter<Label extends string = never> {
  inc(labels?: Partial<Record<Label, string>>): void;
}

export interface Metrics {
  readonly enabled: boolean;
  /** The registry a scrape reads (undefined when off). */
  readonly registry: Registry | undefined;
  /** Times every request and counts those in flight; the first middleware of the app. */
  readonly observeRequests: RequestHandler | undefined;
  /** Records the matched route's template for the request's labels (inside the route's middleware). */
  readonly recordRoute: RequestHandler;
  readonly rateLimitRefusals: MetricCounter;
  readonly idempotentReplays: MetricCounter;
  readonly databaseUnavailable: MetricCounter;
  readonly transitions: MetricCounter<'transition'>;
  /** A counter of another module, in the same registry. */
  counter<Label extends string>(name: string, help: string, labelNames: readonly Label[]): MetricCounter<Label>;
  /**
   * A gauge worked out when scraped. `aggregator` says how a cluster's primary combines the
   * workers' values: `sum` for what each process holds, `max` for what every process reads
   * from the same database.
   */
  gauge(name: string, help: string, collect: () => Promise<number> | number, aggregator?: 'sum' | 'max'): void;
}

const NO_COUNTER: MetricCounter<string> = { inc: () => {} };

/** Metrics off: nothing registered, nothing measured. */
export const noMetrics: Metrics = {
  enabled: false,
  registry: undefined,
  observeRequests: undefined,
  recordRoute: (_req, _res, next) => next(),
  rateLimitRefusals: NO_COUNTER,
  idempotentReplays: NO_COUNTER,
  databaseUnavailable: NO_COUNTER,
  transitions: NO_COUNTER,
  counter: () => NO_COUNTER,
  gauge: () => {},
};

/** What the pool behind the database reports (pg's Pool). */
export interface PoolStats {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/**
 * Seconds, on the boundaries OpenTelemetry recommends for `http.server.request.duration`.
 */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

export const createMetrics = ({ pool }: { pool?: PoolStats } = {}): Metrics => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const duration = new Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'Duration of HTTP server requests.',
    labelNames: ['http_request_method', 'http_route', 'http_response_status_code'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const active = new Gauge({
    name: 'http_server_active_requests',
    help: 'Number of HTTP server requests in flight.',
    labelNames: ['http_request_method'] as const,
    registers: [registry],
  });
  const counter = <Label extends string>(
    name: string,
    help: string,
    labelNames: readonly Label[],
  ): MetricCounter<Label> => {
    const registered = new Counter<Label>({ name, help, labelNames, registers: [registry] });
    return { inc: (labels) => (labels ? registered.inc(labels) : registered.inc()) };
  };
  const gauge: Metrics['gauge'] = (name, help, collect, aggregator = 'max') => {
    new Gauge({
      name,
      help,
      registers: [registry],
      aggregator,
      async collect() {
        this.set(await collect());
      },
    });
  };

  if (pool) {
    // db.client.connection.count by state, and the requests waiting for one.
    new Gauge({
      name: 'db_client_connection_count',
      help: 'Connections of the PostgreSQL pool, by state.',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'used' }, pool.totalCount - pool.idleCount);
      },
    });
    gauge(
      'db_client_connection_pending_requests',
      'Requests waiting for a connection of the PostgreSQL pool.',
      () => pool.waitingCount,
      'sum',
    );
  }

  const observeRequests: RequestHandler = (req, res, next) => {
    const method = req.method;
    const end = duration.startTimer();
    active.inc({ http_request_method: method });
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      active.dec({ http_request_method: method });
      // Routes outside the contract (health, docs) name themselves; the API's did in recordRoute.
      const route =
        (res.locals.httpRoute as string | undefined) ??
        (req.route ? `${req.baseUrl}${(req.route as { path: string }).path}` : UNMATCHED_ROUTE);
      end({ http_request_method: method, http_route: route, http_response_status_code: String(res.statusCode) });
    };
    res.once('finish', finish);
    res.once('close', finish);
    next();
  };

  return {
    enabled: true,
    registry,
    observeRequests,
    recordRoute: (req, res, next) => {
      // The route's template as Express matched it (e.g. /api/sales-orders/:id), never the path.
      res.locals.httpRoute = `${req.baseUrl}${(req.route as { path: string } | undefined)?.path ?? ''}`;
      next();
    },
    rateLimitRefusals: counter('rate_limit_refusals_total', 'Requests refused by the rate limit (429).', []),
    idempotentReplays: counter(
      'idempotent_replays_total',
      'Requests answered with the stored result of an earlier request with the same Idempotency-Key.',
      [],
    ),
    databaseUnavailable: counter(
      'database_unavailable_responses_total',
      'Requests answered 503 because the database did not answer in time.',
      [],
    ),
    transitions: counter('sales_order_transitions_total', 'Order transitions done, by transition.', ['transition']),
    counter,
    gauge,
  };
};
