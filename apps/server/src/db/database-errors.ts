/**
 * Which failures mean "the database is unreachable, hung or overloaded" (answered 503 with
 * Retry-After) rather than a fault of this service (500). What each layer throws was read from
 * pg 8, pg-pool 3, @prisma/adapter-pg 7 and the Prisma 7 client runtime, and is exercised by
 * test/database-outages.test.ts through a TCP proxy:
 *
 * - Prisma wraps a driver adapter error (`DriverAdapterError`, its `cause.kind` saying what
 *   happened) into a PrismaClientKnownRequestError: P1001 unreachable, P1008 socket timeout,
 *   P1017 connection closed, P2037 too many connections; a PostgreSQL error without a Prisma
 *   code becomes P2010 (raw queries) or P2039, with the SQLSTATE in
 *   `meta.driverAdapterError.cause.originalCode`.
 * - An interactive transaction that cannot start within `maxWait` is P2028 "Unable to start a
 *   transaction in the given time".
 * - Errors the adapter does not recognise pass through untouched: pg's own plain errors
 *   (pool acquire timeout, connect timeout, read timeout, dropped connection), and Node socket
 *   errors when pg is used directly (the readiness probe).
 */

/** Prisma codes of connection failures (https://www.prisma.io/docs/orm/reference/error-reference). */
const UNAVAILABLE_PRISMA_CODES = new Set([
  'P1001', // can't reach database server
  'P1002', // database server reached but timed out
  'P1008', // operations timed out (SocketTimeout)
  'P1017', // server has closed the connection
  'P2024', // timed out fetching a connection from the pool
  'P2037', // too many database connections opened
]);

/** Transaction-start timeout (P2028 also covers programming errors, so the message decides). */
const TRANSACTION_START_TIMEOUT = 'Unable to start a transaction in the given time';

/**
 * SQLSTATEs that mean the server could not serve the statement now: shutting down or starting
 * (57P01-57P03), a connection exception (class 08) or insufficient resources (class 53). Not a
 * statement the server itself ended, lock_timeout (55P03) or statement_timeout (57014): the
 * database answered, and what held the statement is contention (isContention).
 */
const isUnavailableSqlState = (code: string): boolean => /^57P0[123]$/.test(code) || /^(08|53)/.test(code);

/** PostgreSQL's lock_not_available: lock_timeout ended a wait for a lock another transaction holds. */
export const LOCK_NOT_AVAILABLE = '55P03';

/**
 * PostgreSQL's query_canceled: statement_timeout ended the statement. On a database that answers
 * this is a statement queued behind other transactions' locks: each lock wait is shorter than
 * the statement timeout, but a statement can wait for more than one (a row's tuple lock, then
 * its holder), and a whole queue of creates on one series' counter does.
 */
export const QUERY_CANCELED = '57014';

/** pg and pg-pool raise these as plain errors, without a code. */
const UNAVAILABLE_PG_MESSAGES = new Set([
  'Connection terminated due to connection timeout', // pg-pool: a new connection did not complete in time
  'Connection terminated unexpectedly',
  'Query read timeout', // pg: no answer within query_timeout
  'timeout expired', // pg client: connect timeout
  'Client has encountered a connection error and is not queryable',
]);

const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

/** Driver adapter error kinds that mean the connection, not the statement, failed. */
const UNAVAILABLE_ADAPTER_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
]);

type Inspectable = {
  code?: unknown;
  message?: unknown;
  name?: unknown;
  meta?: unknown;
  cause?: unknown;
  syscall?: unknown;
  driverAdapterError?: unknown;
};

const asObject = (value: unknown): Inspectable | undefined =>
  typeof value === 'object' && value !== null ? value : undefined;

/** `{ kind, originalCode? }` of a driver adapter error, wherever Prisma put it. */
const adapterCause = (error: Inspectable): { kind?: unknown; originalCode?: unknown; code?: unknown } | undefined => {
  if (error.name === 'DriverAdapterError') return asObject(error.cause);
  const wrapped = asObject(asObject(error.meta)?.driverAdapterError);
  return wrapped ? asObject(wrapped.cause) : undefined;
};

const isUnavailableOne = (error: Inspectable): boolean => {
  const { code, message } = error;
  if (typeof code === 'string') {
    if (UNAVAILABLE_PRISMA_CODES.has(code)) return true;
    if (code === 'P2028' && typeof message === 'string' && message.includes(TRANSACTION_START_TIMEOUT)) return true;
    if (UNAVAILABLE_SOCKET_CODES.has(code) && typeof error.syscall === 'string') return true;
  }
  const cause = adapterCause(error);
  if (cause) {
    if (typeof cause.kind === 'string' && UNAVAILABLE_ADAPTER_KINDS.has(cause.kind)) return true;
    const sqlState = cause.originalCode ?? cause.code;
    return typeof sqlState === 'string' && isUnavailableSqlState(sqlState);
  }
  // A pg DatabaseError used directly (the readiness probe) carries the SQLSTATE and a severity.
  if ('severity' in error && typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return isUnavailableSqlState(code);
  return typeof message === 'string' && UNAVAILABLE_PG_MESSAGES.has(message);
};

/**
 * The SQLSTATE of a PostgreSQL error, read from its field wherever the layers put it: Prisma's
 * driver adapter error (`meta.driverAdapterError.cause.originalCode`, or the adapter error
 * itself) or pg's DatabaseError (`code`, with a severity). Undefined for anything else.
 */
export const sqlStateOf = (error: unknown): string | undefined => {
  const inspectable = asObject(error);
  if (!inspectable) return undefined;
  const cause = adapterCause(inspectable);
  const sqlState = cause
    ? (cause.originalCode ?? cause.code)
    : 'severity' in inspectable
      ? inspectable.code
      : undefined;
  return typeof sqlState === 'string' && /^[0-9A-Z]{5}$/.test(sqlState) ? sqlState : undefined;
};

/** True when lock_timeout ended the statement's wait for another transaction's lock. */
export const isLockNotAvailable = (error: unknown): boolean => sqlStateOf(error) === LOCK_NOT_AVAILABLE;

/**
 * True when the database answered but ended the statement itself, for its lock wait or its
 * statement timeout: contention (503 `busy`), not an outage. An outage is a database that does
 * not answer, which the availability monitor's own ping judges.
 */
export const isContention = (error: unknown): boolean => {
  const sqlState = sqlStateOf(error);
  return sqlState === LOCK_NOT_AVAILABLE || sqlState === QUERY_CANCELED;
};

/** True when `error` (or an error it wraps) says the database is unreachable, hung or overloaded. */
export const isDatabaseUnavailable = (error: unknown): boolean => {
  // pg-pool wraps the socket error of a failed connect in `cause`; a few levels are plenty.
  let current = asObject(error);
  for (let depth = 0; current && depth < 4; depth += 1) {
    if (isUnavailableOne(current)) return true;
    current = asObject(current.cause);
  }
  return false;
};
