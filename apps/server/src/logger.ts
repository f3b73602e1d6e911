import { type DestinationStream, type Logger, pino } from 'pino';

export type { Logger };

/** Header values that must never reach a log line. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
];

/** Structured JSON logs; credentials are replaced by "[Redacted]". */
export const createLogger = (level: string, destination?: DestinationStream): Logger =>
  pino({ level, redact: { paths: REDACTED_PATHS }, base: { service: 'sales-order-service' } }, destination);
