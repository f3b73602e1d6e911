import type { DestinationStream } from 'pino';

export type LogEntry = { level: number; msg?: string; [field: string]: unknown };

/** pino's numeric level of `warn`: entries at or above it are the ones an operator is alerted by. */
export const WARN_LEVEL = 40;

/**
 * A pino destination that keeps every entry, for tests that read what the service logged
 * (pass `stream` as `logStream` to startTestServer, with LOG_LEVEL letting the entries through).
 */
export const captureLog = () => {
  const entries: LogEntry[] = [];
  const stream: DestinationStream = { write: (line: string) => void entries.push(JSON.parse(line) as LogEntry) };
  return {
    stream,
    entries,
    /** Entries written after `mark` (an earlier `entries.length`). */
    since: (mark: number) => entries.slice(mark),
  };
};
