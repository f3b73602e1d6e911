import { trace } from '@opentelemetry/api';
import { destination, type DestinationStream, type Logger, pino } from 'pino';

export type { Logger };

/** Header values that must never reach a log line. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
];

/**
 * Standard output, written asynchronously: a request never waits on the write of its log line,
 * and lines logged while a write is under way go out together in the next one. pino flushes
 * what is left synchronously when the process exits, whether by process.exit (the end of a
 * graceful shutdown), the end of the event loop or an uncaught exception; only a SIGKILL can
 * lose lines.
 */
const asynchronousStdout = (): DestinationStream => destination({ dest: 1, sync: false });

/** The trace and span of the work a line is logged in, when tracing is on (tracing.ts). */
const traceIds = () => {
  const context = trace.getActiveSpan()?.spanContext();
  return context ? { trace_id: context.traceId, span_id: context.spanId } : {};
};

/**
 * Structured JSON logs; credentials are replaced by "[Redacted]". With `traceIds` (tracing on)
 * each line carries the trace and span ids of the request it is logged in.
 */
export const createLogger = (
  level: string,
  destination: DestinationStream = asynchronousStdout(),
  { traceIds: withTraceIds = false }: { traceIds?: boolean } = {},
): Logger =>
  pino(
    {
      level,
      redact: { paths: REDACTED_PATHS },
      base: { service: 'sales-order-service' },
      ...(withTraceIds ? { mixin: traceIds } : {}),
    },
    destination,
  );
