import { register } from 'node:module';

import type { AppConfig } from '../startup/config.js';

/**
 * OpenTelemetry tracing, started before the service's own modules load (main.ts imports them
 * after this), so that its instrumentations wrap HTTP, Express and pg: spans for every request,
 * route and statement, exported over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT. Not loaded at
 * all when tracing is off: no SDK, no hook, no span.
 */
export const startTracing = async ({ serviceName, recordQuery }: NonNullable<AppConfig['tracing']>) => {
  // The service is ES modules: Node's loader hook lets the instrumentations patch what they import.
  // Prisma's generated client is left alone: no instrumentation patches it (pg's does, below it),
  // and under tsx its TypeScript source cannot be wrapped (a warning per start, twice).
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, {
    data: { exclude: [/\/generated\/prisma\//] },
  });
  const [
    { NodeSDK },
    { OTLPTraceExporter },
    { HttpInstrumentation },
    { ExpressInstrumentation },
    { PgInstrumentation },
  ] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-express'),
    import('@opentelemetry/instrumentation-pg'),
  ]);
  const sdk = new NodeSDK({
    serviceName,
    // The exporter reads OTEL_EXPORTER_OTLP_ENDPOINT (and the rest of OpenTelemetry's variables).
    traceExporter: new OTLPTraceExporter(),
    instrumentations: [
      // A request's span is named by its route template (`GET /api/sales-orders/:id`, from the
      // Express instrumentation's http.route); its query string (search terms: `q=...`) is left
      // out unless TRACING_RECORD_QUERY=true. An attribute set to undefined is dropped.
      new HttpInstrumentation(recordQuery ? {} : { startIncomingSpanHook: () => ({ 'url.query': undefined }) }),
      new ExpressInstrumentation(),
      new PgInstrumentation(),
    ],
  });
  sdk.start();
  return sdk;
};
