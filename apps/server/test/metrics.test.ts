import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { eventually } from './support/eventually.js';
import { type ServerProcess, startServerProcess, stopServerProcess } from './support/server-process.js';
import { createTestDatabase } from './support/test-server.js';
import { signJwt, TEST_JWT_SECRET } from './support/tokens.js';

/** The port the process's metrics server listens on, from its log. */
const metricsPortOf = (server: ServerProcess): number | undefined =>
  server.output
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg?: string; port?: number })
    .find((entry) => entry.msg === 'metrics listening')?.port;

const scrape = async (port: number) => {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
};

/** The value of one sample line, e.g. `name{a="b"} 3`; undefined when absent. */
const sample = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

const bearer = async () => `Bearer ${await signJwt({ payload: { permissions: ['*'] }, expiresIn: '1h' })}`;

/**
 * The database env of a process that reads the demo data (order 1): a clone of the demo template
 * on the PostgreSQL server (milliseconds), or the embedded database, loaded at its start.
 */
const dropAfterwards: (() => Promise<void>)[] = [];
afterAll(() => Promise.all(dropAfterwards.map((drop) => drop())));
const demoDatabase = async () => {
  const database = await createTestDatabase({ demo: true });
  dropAfterwards.push(() => database.drop());
  return { ...database.env, SEED_DEMO_DATA: 'always' };
};

describe('metrics on METRICS_PORT', () => {
  let server: ServerProcess;
  let port: number;

  beforeAll(async () => {
    server = await startServerProcess({
      ...(await demoDatabase()),
      METRICS_PORT: '0',
      JWT_SECRET: TEST_JWT_SECRET,
      RATE_LIMIT_PER_MINUTE: '30',
      ORDER_ENTRY_PAGE: 'true',
    });
    port = metricsPortOf(server)!;
    expect(port).toBeGreaterThan(0);
  });
  afterAll(() => stopServerProcess(server));

  it('names requests by method, route template and status, never by an id or a raw path', async () => {
    const authorization = await bearer();
    for (const id of [123_456, 987_654]) {
      const response = await fetch(`${server.api}/sales-orders/${id}`, { headers: { authorization } });
      expect(response.status).toBe(404);
    }
    expect((await fetch(`${server.api}/sales-orders/1`, { headers: { authorization } })).status).toBe(200);
    expect((await fetch(`${server.api}/no-such-thing/55555`, { headers: { authorization } })).status).toBe(404);
    expect((await fetch(new URL('/healthz', server.api))).status).toBe(200);
    // The order entry page by both its addresses, two of its assets and one it does not have.
    const page = await fetch(new URL('/order-entry/', server.api));
    expect(page.status).toBe(200);
    const assets = [...(await page.text()).matchAll(/(?:src|href)="\.\/(assets\/[^"]+)"/g)].map(
      (match) => `/order-entry/${match[1]!}`,
    );
    expect(assets.length).toBeGreaterThanOrEqual(2);
    expect((await fetch(new URL('/order-entry/index.html', server.api))).status).toBe(200);
    for (const asset of assets.slice(0, 2)) expect((await fetch(new URL(asset, server.api))).status).toBe(200);
    expect((await fetch(new URL('/order-entry/assets/no-such-55555.js', server.api))).status).toBe(404);

    const text = await scrape(port);
    const count = (route: string, status: number) =>
      sample(
        text,
        `http_server_request_duration_seconds_count{http_request_method="GET",http_route="${route}",http_response_status_code="${status}"}`,
      );
    expect(count('/api/sales-orders/:id', 404)).toBe(2);
    expect(count('/api/sales-orders/:id', 200)).toBe(1);
    expect(count('(unmatched)', 404)).toBe(1);
    expect(count('/healthz', 200)).toBe(1);
    expect(count('/order-entry/', 200)).toBe(2);
    expect(count('/order-entry/assets/*', 200)).toBe(2);
    expect(count('/order-entry/assets/*', 404)).toBe(1);
    // No label value anywhere holds an id or a path that was asked for.
    const labelValues = [...text.matchAll(/="([^"]*)"/g)].map((match) => match[1]!);
    for (const asked of ['123456', '987654', '55555', 'no-such-thing']) {
      expect(labelValues.filter((value) => value.includes(asked))).toEqual([]);
    }
    expect(text).toMatch(/^http_server_request_duration_seconds_bucket\{le="0\.005",/m);
  });

  it("exposes the pool, the process, and the service's own counts", async () => {
    const authorization = await bearer();
    const headers = { authorization, 'content-type': 'application/json' };
    // A confirm (order 3 of the demo data is a draft) and an idempotent replay.
    expect(
      (
        await fetch(`${server.api}/sales-orders/3/confirm`, {
          method: 'POST',
          headers,
          body: '{"acknowledge_warnings":true}',
        })
      ).status,
    ).toBe(200);
    const create = () =>
      fetch(`${server.api}/sales-orders`, {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': 'metrics-replay' },
        body: JSON.stringify({
          customer_id: 4,
          sales_order_date: new Date().toISOString().slice(0, 10),
          location_id: 1,
          details: [{ product_id: 6, quantity: 1, rate: 10 }],
        }),
      });
    expect((await create()).status).toBe(201);
    expect((await create()).headers.get('idempotent-replayed')).toBe('true');

    const text = await scrape(port);
    expect(sample(text, 'sales_order_transitions_total{transition="confirm"}')).toBe(1);
    expect(sample(text, 'idempotent_replays_total')).toBe(1);
    expect(sample(text, 'rate_limit_refusals_total')).toBe(0);
    expect(sample(text, 'database_unavailable_responses_total')).toBe(0);
    expect(sample(text, 'db_client_connection_count{state="idle"}')).toBeGreaterThanOrEqual(0);
    // The embedded database has one connection: a background poll (the outbox relay, pg-boss)
    // or this scrape's own backlog gauge may be waiting for it at the moment of the scrape.
    const pending = sample(text, 'db_client_connection_pending_requests');
    expect(
      pending !== undefined && Number.isInteger(pending) && pending >= 0 && pending <= 2,
      `pending ${pending}`,
    ).toBe(true);
    expect(sample(text, 'http_server_active_requests{http_request_method="POST"}')).toBe(0);
    expect(sample(text, 'events_outbox_depth')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'webhook_deliveries_pending')).toBe(0);
    expect(sample(text, 'webhook_oldest_undelivered_age_seconds')).toBe(0);
    expect(text).toContain('# TYPE webhook_deliveries_total counter');
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(text).toContain('# TYPE nodejs_heap_size_used_bytes gauge');
  });

  it("deploy/'s dashboard and scrape config ask for series the service exports, on compose's metrics port", async () => {
    const text = await scrape(port);
    const exported = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]));
    const deploy = new URL('../../../deploy/', import.meta.url);
    const dashboard = JSON.parse(readFileSync(new URL('grafana/sales-order-service.json', deploy), 'utf8')) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    const asked = dashboard.panels.flatMap((panel) =>
      panel.targets.flatMap((target) => [...target.expr.matchAll(/([a-z_][a-z0-9_]*)\{/g)].map((match) => match[1]!)),
    );
    expect(asked.length).toBeGreaterThan(12);
    // A histogram's series are its name with _bucket, _count or _sum.
    const missing = asked.filter(
      (name) => !exported.has(name) && !exported.has(name.replace(/_(bucket|count|sum)$/, '')),
    );
    expect(missing).toEqual([]);
    const compose = readFileSync(new URL('../compose.yaml', deploy), 'utf8');
    const composePort = /METRICS_PORT: '(\d+)'/.exec(compose)?.[1];
    const targets = readFileSync(new URL('prometheus.yml', deploy), 'utf8').match(/api-\d:(\d+)/g) ?? [];
    expect(targets.length).toBe(2);
    expect(targets.every((target) => target.endsWith(`:${composePort}`))).toBe(true);
  });

  it('is not on the API: /metrics there is a 404, and the metrics port serves nothing else', async () => {
    const origin = new URL(server.api).origin;
    const authorization = await bearer();
    for (const path of ['/metrics', '/api/metrics']) {
      expect((await fetch(`${origin}${path}`, { headers: { authorization } })).status, path).toBe(404);
    }
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${port}/metrics`, { method: 'POST' })).status).toBe(404);
  });
  it('counts rate-limit refusals', async () => {
    let refused = 0;
    for (let index = 0; index < 40 && refused === 0; index += 1) {
      if ((await fetch(new URL('/api/openapi.json', server.api))).status === 429) refused += 1;
    }
    expect(refused).toBe(1);
    expect(sample(await scrape(port), 'rate_limit_refusals_total')).toBe(1);
  });
});

// Each test starts service processes of its own (a cluster, or the OpenTelemetry loader hook,
// which wraps every module the service imports): minutes on a loaded 2-core machine.
const PROCESS_TESTS = { timeout: 240_000 };

// Two workers need a PostgreSQL server (the embedded database is one process).
describe.skipIf(!process.env.TEST_DATABASE_URL)('metrics of a cluster (needs TEST_DATABASE_URL)', () => {
  it("the primary adds up every worker's counts", async () => {
    const database = await createTestDatabase();
    const server = await startServerProcess({
      ...database.env,
      WEB_CONCURRENCY: '2',
      METRICS_PORT: '0',
      JWT_SECRET: TEST_JWT_SECRET,
    });
    try {
      const port = metricsPortOf(server)!;
      for (let index = 0; index < 12; index += 1) {
        expect((await fetch(new URL('/healthz', server.api))).status).toBe(200);
      }
      const text = await scrape(port).catch((error: unknown) => {
        throw new Error(`${String(error)}\n${server.output.filter((line) => line.includes('metrics')).join('\n')}`);
      });
      expect(
        sample(
          text,
          'http_server_request_duration_seconds_count{http_request_method="GET",http_route="/healthz",http_response_status_code="200"}',
        ),
      ).toBe(12);
      // Both workers answered some: round robin across the cluster.
      expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    } finally {
      await stopServerProcess(server);
      await database.drop();
    }
  });
});

/** A span as OTLP/HTTP JSON carries it. */
type CollectedSpan = {
  traceId: string;
  name: string;
  /** 2: a server span (OTLP's SPAN_KIND_SERVER). */
  kind?: number;
  attributes?: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
};
const attributeOf = (span: CollectedSpan, key: string) =>
  span.attributes?.find((attribute) => attribute.key === key)?.value.stringValue;

/** A collector of OTLP/HTTP (JSON) traces on loopback. */
const startCollector = async () => {
  const spans: CollectedSpan[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const payload = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: CollectedSpan[] }[] }[] };
        for (const resource of payload.resourceSpans)
          for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { spans, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
};

describe('tracing', PROCESS_TESTS, () => {
  it('with OTEL_EXPORTER_OTLP_ENDPOINT: spans for the request and its statements, and the trace id in its log line', async () => {
    const collector = await startCollector();
    const server = await startServerProcess({
      ...(await demoDatabase()),
      JWT_SECRET: TEST_JWT_SECRET,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    try {
      const response = await fetch(`${server.api}/sales-orders/1`, { headers: { authorization: await bearer() } });
      expect(response.status).toBe(200);
      await eventually(async () => collector.spans.some((span) => span.name.startsWith('GET')), 60_000);
      await eventually(async () => collector.spans.some((span) => /^(pg\.query|SELECT)/.test(span.name)), 60_000);
      // The access line is written once the answer is sent, and reaches this process through a
      // pipe: on a loaded machine the spans can arrive before it does.
      const requestLine = () =>
        server.output
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as { msg?: string; path?: string; trace_id?: string })
          .find((entry) => entry.path === '/api/sales-orders/1');
      await eventually(async () => requestLine() !== undefined, 60_000);
      const request = requestLine();
      expect(request?.trace_id, JSON.stringify(request)).toMatch(/^[0-9a-f]{32}$/);
      expect(collector.spans.map((span) => span.traceId)).toContain(request!.trace_id);
    } finally {
      await stopServerProcess(server);
      collector.close();
    }
  });

  it('starts traced without a word from import-in-the-middle, built or through tsx', async () => {
    // Its loader hook once printed "'import-in-the-middle' failed to wrap .../generated/prisma/
    // client.ts" twice per start under tsx: Prisma's generated client is excluded from the hook.
    for (const from of ['build', 'source'] as const) {
      const collector = await startCollector();
      const server = await startServerProcess(
        { ...(await demoDatabase()), JWT_SECRET: TEST_JWT_SECRET, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url },
        undefined,
        from,
      );
      try {
        const response = await fetch(`${server.api}/sales-orders/1`, { headers: { authorization: await bearer() } });
        expect(response.status).toBe(200);
      } finally {
        await stopServerProcess(server);
        collector.close();
      }
      const printed = [...server.errors, ...server.output];
      expect(
        printed.filter((line) => /import-in-the-middle|failed to wrap/i.test(line)),
        from,
      ).toEqual([]);
    }
  });

  it('names a request span by its route template and leaves the query string out, unless TRACING_RECORD_QUERY=true', async () => {
    for (const recordQuery of [false, true]) {
      const collector = await startCollector();
      const server = await startServerProcess({
        ...(await demoDatabase()),
        JWT_SECRET: TEST_JWT_SECRET,
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_BSP_SCHEDULE_DELAY: '100',
        ...(recordQuery ? { TRACING_RECORD_QUERY: 'true' } : {}),
      });
      try {
        const authorization = await bearer();
        expect(
          (await fetch(`${server.api}/sales-orders?q=Talukder&limit=5`, { headers: { authorization } })).status,
        ).toBe(200);
        expect((await fetch(`${server.api}/sales-orders/1`, { headers: { authorization } })).status).toBe(200);
        const serverSpan = (route: string) =>
          collector.spans.find((span) => span.kind === 2 && attributeOf(span, 'http.route') === route);
        await eventually(
          async () => !!serverSpan('/api/sales-orders') && !!serverSpan('/api/sales-orders/:id'),
          60_000,
        );
        const list = serverSpan('/api/sales-orders')!;
        expect(list.name).toBe('GET /api/sales-orders');
        expect(serverSpan('/api/sales-orders/:id')!.name).toBe('GET /api/sales-orders/:id');
        const everything = JSON.stringify(collector.spans.filter((span) => span.traceId === list.traceId));
        if (recordQuery) {
          expect(attributeOf(list, 'url.query'), everything).toContain('q=Talukder');
        } else {
          expect(attributeOf(list, 'url.query')).toBeUndefined();
          expect(everything).not.toContain('Talukder');
        }
      } finally {
        await stopServerProcess(server);
        collector.close();
      }
    }
  });

  it('sends the spans still waiting in the batch when the service stops', async () => {
    const collector = await startCollector();
    // A batch delay far beyond the test: the span can only leave through the shutdown's flush.
    const server = await startServerProcess({
      ...(await demoDatabase()),
      JWT_SECRET: TEST_JWT_SECRET,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: '600000',
      SHUTDOWN_DRAIN_DELAY_MS: '0',
    });
    try {
      const authorization = await bearer();
      const response = await fetch(`${server.api}/sales-orders/1`, { headers: { authorization } });
      expect(response.status).toBe(200);
      // A later marker: an exporter that sent each span as it ended would have sent the first
      // request's before the service read this one, let alone answered it (its statements take
      // several turns of the event loop).
      const later = await fetch(`${server.api}/sales-orders/1`, { headers: { authorization } });
      expect(later.status).toBe(200);
      expect(collector.spans).toEqual([]);
    } finally {
      await stopServerProcess(server);
    }
    expect(collector.spans.some((span) => span.name.startsWith('GET'))).toBe(true);
    collector.close();
  });

  it('off by default: no span leaves the process, no trace id in the logs; and no metrics server without METRICS_PORT', async () => {
    const collector = await startCollector();
    // OpenTelemetry's own variables, which its SDK would obey were it loaded: the service loads it
    // only for OTEL_EXPORTER_OTLP_ENDPOINT, left unset here.
    const server = await startServerProcess({
      ...(await demoDatabase()),
      JWT_SECRET: TEST_JWT_SECRET,
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/v1/traces`,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    try {
      const response = await fetch(`${server.api}/sales-orders/1`, { headers: { authorization: await bearer() } });
      expect(response.status).toBe(200);
      expect(metricsPortOf(server)).toBeUndefined();
      expect((await fetch(`${new URL(server.api).origin}/metrics`)).status).toBe(404);
    } finally {
      // The stop is the later marker: a tracer, had one been loaded, would have sent what it
      // held by the time the process exits (its shutdown flushes).
      await stopServerProcess(server);
      collector.close();
    }
    expect(collector.spans).toEqual([]);
    expect(server.output.some((line) => line.includes('trace_id'))).toBe(false);
  });
});
