import { isIP } from 'node:net';

import { BULK_MAX_ORDERS_CEILING, BULK_MAX_ORDERS_DEFAULT, REPORT_CSV_MAX_ROWS_DEFAULT } from '@sales-order/contract';
import { z } from 'zod';

import { parsePublicKey } from '../auth/jwt-verifier.js';
import { DEFAULT_RETRY_SCHEDULE_MS } from '../events/retry-schedule.js';
import { DEFAULT_ORDER_NUMBER_MAX_AHEAD } from '../orders/numbering.js';
import { canonicalTimeZone } from '../shared/calendar.js';

/**
 * Configuration comes only from environment variables, validated once at start-up.
 * `docs/configuration.md` and `.env.example` list the same variables. Numbers, names and
 * switches are parsed strictly (no surrounding spaces, no `0x50` for 80): a value that could be
 * read two ways is refused rather than guessed.
 */

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value.trim()));

/** A token such as a number or a level: unset when empty, otherwise taken exactly as written. */
const exactString = z
  .string()
  .optional()
  .transform((value) => (value === '' ? undefined : value));

/** Canonical decimal digits only: no sign, spaces, exponent, fraction, leading zero or 0x. */
const CANONICAL_INTEGER = /^(0|[1-9]\d*)$/;

const integer = (name: string, fallback: number, min: number, max: number) =>
  exactString.transform((value, ctx) => {
    if (value === undefined) return fallback;
    const parsed = CANONICAL_INTEGER.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: `${name} must be an integer from ${min} to ${max}` });
      return z.NEVER;
    }
    return parsed;
  });

/** A percentage from 0 to 100 with at most 2 decimal places, kept as its exact decimal text. */
const percent = (name: string) =>
  exactString.transform((value, ctx) => {
    if (value === undefined) return '0';
    if (!/^(0|[1-9]\d{0,2})(\.\d{1,2})?$/.test(value) || Number(value) > 100) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: `${name} must be a percentage from 0 to 100 (at most 2 decimals)`,
      });
      return z.NEVER;
    }
    return value;
  });

/** A URL with one of `protocols`; the message never repeats it (it may hold a password). */
const url = (protocols: string[], message: string) =>
  optionalString.refine((value) => {
    if (value === undefined) return true;
    try {
      return protocols.includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, message);

/** One of `values`, written exactly (no surrounding spaces, this case). */
const oneOf = <const T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) =>
  exactString.transform((value, ctx): T[number] => {
    if (value === undefined) return fallback;
    if (!values.includes(value)) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: `must be one of ${values.join(', ')}` });
      return z.NEVER;
    }
    return value;
  });

const basePath = optionalString.transform((value, ctx) => {
  const path = (value ?? '/api').replace(/\/+$/, '');
  if (path !== '' && !/^\/[A-Za-z0-9/_.-]*$/.test(path)) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must be a path such as /api (or / for none)' });
    return z.NEVER;
  }
  return path;
});

/** Express's names for address ranges, accepted in a trust-proxy list. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** An IP address, an IP/prefix subnet, or one of Express's range names. */
const isProxyAddress = (item: string): boolean => {
  if (PROXY_RANGE_NAMES.includes(item)) return true;
  const [address = '', prefix, ...rest] = item.split('/');
  // A zone index (fe80::1%eth0) names an interface, not a peer; Express cannot match it.
  const version = address.includes('%') || rest.length > 0 ? 0 : isIP(address);
  if (version === 0) return false;
  if (prefix === undefined) return true;
  return CANONICAL_INTEGER.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
};

/**
 * Express's trust-proxy setting: false (the default), a hop count, or a comma-separated list of
 * proxy addresses and subnets. `true` is refused: it trusts X-Forwarded-For from anyone, so
 * every client could choose the address its rate limit is counted under.
 */
const trustProxy = exactString.transform((value, ctx): false | number | string[] => {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message:
        'true is refused (any client could then choose its own rate-limit key): give the number of proxies in front of the service, ' +
        'or their addresses/subnets (e.g. 10.0.0.0/8, loopback)',
    });
    return z.NEVER;
  }
  if (CANONICAL_INTEGER.test(value) && Number(value) <= 100) return Number(value);
  const items = value.split(',').map((item) => item.trim());
  const bad = items.filter((item) => !isProxyAddress(item));
  if (bad.length > 0) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message:
        `must be false, a hop count from 0 to 100, or a comma-separated list of IP addresses, IP/prefix subnets, loopback, ` +
        `linklocal or uniquelocal (not ${bad.map((item) => JSON.stringify(item)).join(', ')})`,
    });
    return z.NEVER;
  }
  return items;
});

const bodyLimit = exactString.refine(
  (value) => value === undefined || /^(0|[1-9]\d*)(\.\d+)?(b|kb|mb)?$/i.test(value),
  'must be a size such as 1mb, 512kb or 100000',
);

const jwtSecret = optionalString.transform((value, ctx) => {
  if (value === undefined) return undefined;
  const bytes = new TextEncoder().encode(value);
  if (bytes.length < 32) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message: 'must be at least 32 bytes (e.g. `openssl rand -base64 48`)',
    });
    return z.NEVER;
  }
  return bytes;
});

// A PEM in one environment line usually arrives with its line breaks written as "\n".
const jwtPublicKey = optionalString.transform((value, ctx) => {
  if (value === undefined) return undefined;
  try {
    return parsePublicKey(value.replace(/\\n/g, '\n'));
  } catch (error) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: (error as Error).message });
    return z.NEVER;
  }
});

// RFC 6265 cookie-name characters (an HTTP token).
const cookieName = optionalString.refine(
  (value) => value === undefined || /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(value),
  "must be a cookie name (letters, digits and !#$%&'*+-.^_`|~)",
);

/**
 * Origins allowed to call from a browser with credentials (CORS) and to send cookie-authenticated
 * writes (the CSRF check). Each must be a bare origin such as https://erp.example.com; `*`
 * is refused because it would switch the CSRF check off.
 */
const allowedOrigins = optionalString.transform((value, ctx) => {
  const origins: string[] = [];
  for (const item of (value ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')) {
    let origin: string | undefined;
    try {
      const url = new URL(item);
      if (/^https?:$/.test(url.protocol) && url.origin === item.replace(/\/$/, '').toLowerCase()) origin = url.origin;
    } catch {
      origin = undefined;
    }
    if (origin === undefined) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: `"${item}" is not an origin such as https://erp.example.com (scheme, host and port only; no * or path)`,
      });
      return z.NEVER;
    }
    origins.push(origin);
  }
  return origins;
});

/** An IANA time zone name, in its canonical spelling. */
const timeZone = exactString.transform((value, ctx) => {
  if (value === undefined) return 'UTC';
  const canonical = canonicalTimeZone(value);
  if (canonical === undefined) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must be an IANA time zone name such as Asia/Dhaka or UTC' });
    return z.NEVER;
  }
  return canonical;
});

/** A host name or IP address to listen on. */
const listenHost = optionalString.transform((value, ctx) => {
  if (value === undefined) return '127.0.0.1';
  if (
    isIP(value) === 0 &&
    !/^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(value)
  ) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must be an IP address or a host name' });
    return z.NEVER;
  }
  return value;
});

const DURATION = /^(0|[1-9]\d*)(ms|s|m|h|d)$/;
const DURATION_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** Retries a schedule may hold: a delivery's attempts are listed in full (DELIVERY_ATTEMPTS_MAX). */
const RETRY_SCHEDULE_MAX = 20;
/** The longest wait between two attempts: beyond it the 3-day disable would come first. */
const RETRY_DELAY_MAX_MS = 3 * 86_400_000;

/**
 * Comma-separated durations (`5s,5m,30m,2h`; units ms, s, m, h, d): the wait before each retry
 * of a failed delivery, in milliseconds. An empty list means no retry.
 */
const retrySchedule = exactString.transform((value, ctx): number[] => {
  if (value === undefined) return DEFAULT_RETRY_SCHEDULE_MS;
  if (value === 'none') return [];
  const delays = value.split(',').map((item) => {
    const match = DURATION.exec(item);
    return match ? Number(match[1]) * DURATION_MS[match[2] as keyof typeof DURATION_MS] : Number.NaN;
  });
  if (delays.length > RETRY_SCHEDULE_MAX || delays.some((delay) => !(delay >= 0 && delay <= RETRY_DELAY_MAX_MS))) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message:
        `must be none or up to ${RETRY_SCHEDULE_MAX} comma-separated durations of at most 3d, such as 5s,5m,30m,2h ` +
        '(units ms, s, m, h, d; no spaces)',
    });
    return z.NEVER;
  }
  return delays;
});

/** A port, or undefined when the variable is unset or empty (the feature off). */
const optionalPort = (name: string) =>
  exactString.transform((value, ctx) => {
    if (value === undefined) return undefined;
    const parsed = CANONICAL_INTEGER.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(parsed) || parsed > 65_535) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: `${name} must be an integer from 0 to 65535` });
      return z.NEVER;
    }
    return parsed;
  });

/** An order entry switch: `auto` (unset) is on with the embedded database, off with DATABASE_URL. */
const orderEntrySwitch = (value: 'true' | 'false' | 'auto', databaseUrl: string | undefined) =>
  value === 'auto' ? databaseUrl === undefined : value === 'true';

const EnvironmentSchema = z
  .object({
    PORT: integer('PORT', 3000, 0, 65535),
    HOST: listenHost,
    BASE_PATH: basePath,
    DATABASE_URL: url(['postgres:', 'postgresql:'], 'must be a postgres:// or postgresql:// URL'),
    DATABASE_POOL_MAX: integer('DATABASE_POOL_MAX', 10, 1, 1000),
    DATABASE_CONNECT_TIMEOUT_MS: integer('DATABASE_CONNECT_TIMEOUT_MS', 1_000, 100, 60_000),
    DATABASE_STATEMENT_TIMEOUT_MS: integer('DATABASE_STATEMENT_TIMEOUT_MS', 1_500, 100, 3_600_000),
    DATABASE_LOCK_TIMEOUT_MS: integer('DATABASE_LOCK_TIMEOUT_MS', 1_000, 100, 3_600_000),
    REQUEST_DEADLINE_MS: integer('REQUEST_DEADLINE_MS', 10_000, 100, 600_000),
    DATA_DIR: optionalString.transform((value) => value ?? './data'),
    REDIS_URL: url(['redis:', 'rediss:'], 'must be a redis:// or rediss:// URL'),
    REDIS_KEY_PREFIX: optionalString.transform((value) => value ?? 'sales-order:'),
    REDIS_TIMEOUT_MS: integer('REDIS_TIMEOUT_MS', 50, 1, 10_000),
    JWT_SECRET: jwtSecret,
    JWT_PUBLIC_KEY: jwtPublicKey,
    JWT_ISSUER: optionalString,
    JWT_AUDIENCE: optionalString,
    JWT_REQUIRE_LOCATIONS: oneOf(['true', 'false'], 'false').transform((value) => value === 'true'),
    AUTH_CACHE_TTL_MS: integer('AUTH_CACHE_TTL_MS', 10_000, 0, 300_000),
    MASTER_DATA_CACHE_TTL_MS: integer('MASTER_DATA_CACHE_TTL_MS', 60_000, 0, 3_600_000),
    SESSION_COOKIE_NAME: cookieName.transform((value) => value ?? 'erp_session'),
    ALLOWED_ORIGINS: allowedOrigins,
    RATE_LIMIT_PER_MINUTE: integer('RATE_LIMIT_PER_MINUTE', 100, 1, 1_000_000),
    TRUST_PROXY: trustProxy,
    BODY_LIMIT: bodyLimit.transform((value) => value ?? '1mb'),
    LOG_LEVEL: oneOf(LOG_LEVELS, 'info'),
    ORDER_NUMBER_MAX_AHEAD: integer('ORDER_NUMBER_MAX_AHEAD', Number(DEFAULT_ORDER_NUMBER_MAX_AHEAD), 0, 1_000_000_000),
    SEED_DEMO_DATA: oneOf(['auto', 'always', 'never'], 'auto'),
    BUSINESS_TIME_ZONE: timeZone,
    OVER_DELIVERY_TOLERANCE_PERCENT: percent('OVER_DELIVERY_TOLERANCE_PERCENT'),
    // The product design promises callers at least a day to retry with the same key.
    IDEMPOTENCY_TTL_HOURS: integer('IDEMPOTENCY_TTL_HOURS', 24, 24, 24 * 366),
    IDEMPOTENCY_WAIT_SECONDS: integer('IDEMPOTENCY_WAIT_SECONDS', 10, 1, 60),
    IDEMPOTENCY_PURGE_INTERVAL_SECONDS: integer('IDEMPOTENCY_PURGE_INTERVAL_SECONDS', 300, 1, 86_400),
    REQUIRE_IF_MATCH: oneOf(['true', 'false'], 'false').transform((value) => value === 'true'),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: integer('HTTP_KEEP_ALIVE_TIMEOUT_MS', 5_000, 1_000, 600_000),
    HTTP_HEADERS_TIMEOUT_MS: integer('HTTP_HEADERS_TIMEOUT_MS', 10_000, 1_000, 600_000),
    HTTP_REQUEST_TIMEOUT_MS: integer('HTTP_REQUEST_TIMEOUT_MS', 30_000, 1_000, 3_600_000),
    SHUTDOWN_DRAIN_DELAY_MS: integer('SHUTDOWN_DRAIN_DELAY_MS', 5_000, 0, 600_000),
    SHUTDOWN_TIMEOUT_MS: integer('SHUTDOWN_TIMEOUT_MS', 10_000, 1_000, 600_000),
    WEB_CONCURRENCY: integer('WEB_CONCURRENCY', 1, 1, 64),
    METRICS_PORT: optionalPort('METRICS_PORT'),
    METRICS_HOST: listenHost,
    OTEL_EXPORTER_OTLP_ENDPOINT: url(['http:', 'https:'], 'must be an http:// or https:// URL'),
    OTEL_SERVICE_NAME: optionalString.transform((value) => value ?? 'sales-order-service'),
    TRACING_RECORD_QUERY: oneOf(['true', 'false'], 'false').transform((value) => value === 'true'),
    EVENT_RETENTION_DAYS: integer('EVENT_RETENTION_DAYS', 30, 1, 3650),
    EVENT_PURGE_INTERVAL_SECONDS: integer('EVENT_PURGE_INTERVAL_SECONDS', 3_600, 1, 86_400),
    LICENCE_FOLD_INTERVAL_SECONDS: integer('LICENCE_FOLD_INTERVAL_SECONDS', 10, 1, 3_600),
    LICENCE_RECOUNT_INTERVAL_SECONDS: integer('LICENCE_RECOUNT_INTERVAL_SECONDS', 3_600, 60, 604_800),
    WEBHOOK_RETRY_SCHEDULE: retrySchedule,
    WEBHOOK_TIMEOUT_MS: integer('WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    WEBHOOK_CONCURRENCY: integer('WEBHOOK_CONCURRENCY', 8, 0, 256),
    WEBHOOK_ENDPOINT_CONCURRENCY: integer('WEBHOOK_ENDPOINT_CONCURRENCY', 2, 1, 256),
    WEBHOOK_ALLOW_HTTP: oneOf(['true', 'false'], 'false').transform((value) => value === 'true'),
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: oneOf(['true', 'false'], 'false').transform((value) => value === 'true'),
    // Unset: on with the embedded database (a demo), off with DATABASE_URL (production).
    ORDER_ENTRY_PAGE: oneOf(['true', 'false', 'auto'], 'auto'),
    ORDER_ENTRY_SIGN_IN: oneOf(['true', 'false', 'auto'], 'auto'),
    BULK_MAX_ORDERS: integer('BULK_MAX_ORDERS', BULK_MAX_ORDERS_DEFAULT, 1, BULK_MAX_ORDERS_CEILING),
    BULK_ORDERS_PER_MINUTE: integer('BULK_ORDERS_PER_MINUTE', 6_000, 1, 10_000_000),
    IMPORT_MAX_BYTES: integer('IMPORT_MAX_BYTES', 20 * 1024 * 1024, 1, 1024 * 1024 * 1024),
    IMPORT_MAX_ORDERS: integer('IMPORT_MAX_ORDERS', 50_000, 1, 10_000_000),
    IMPORT_CHUNK_SIZE: integer('IMPORT_CHUNK_SIZE', 100, 1, 10_000),
    IMPORT_CHUNK_TIMEOUT_SECONDS: integer('IMPORT_CHUNK_TIMEOUT_SECONDS', 600, 1, 86_400),
    IMPORT_UPLOADS_CONCURRENT: integer('IMPORT_UPLOADS_CONCURRENT', 6, 1, 1_000),
    REPORT_CSV_MAX_ROWS: integer('REPORT_CSV_MAX_ROWS', REPORT_CSV_MAX_ROWS_DEFAULT, 1, 10_000_000),
    REPORT_STATEMENT_TIMEOUT_MS: integer('REPORT_STATEMENT_TIMEOUT_MS', 30_000, 100, 3_600_000),
  })
  .superRefine((value, ctx) => {
    // Node refuses a server whose headers may take longer than the whole request.
    if (value.HTTP_HEADERS_TIMEOUT_MS > value.HTTP_REQUEST_TIMEOUT_MS) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['HTTP_HEADERS_TIMEOUT_MS'],
        message: 'must not be greater than HTTP_REQUEST_TIMEOUT_MS',
      });
    }
    // A lock wait must end as lock_not_available (contention: 503 busy), never be cut by the
    // statement timeout first (read as an outage), and the Idempotency-Key wait is made of
    // such lock waits: with a lock timeout at or above the statement timeout neither can hold.
    if (value.DATABASE_LOCK_TIMEOUT_MS >= value.DATABASE_STATEMENT_TIMEOUT_MS) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['DATABASE_LOCK_TIMEOUT_MS'],
        message:
          `must be less than DATABASE_STATEMENT_TIMEOUT_MS (${value.DATABASE_STATEMENT_TIMEOUT_MS}): ` +
          'a lock wait must end before the statement waiting for it is cancelled',
      });
    }
    // PGlite lives inside one process and runs one query at a time: workers could not share it.
    if (value.WEB_CONCURRENCY > 1 && value.DATABASE_URL === undefined) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['WEB_CONCURRENCY'],
        message:
          'must be 1 with the embedded database (DATABASE_URL unset): it lives inside one process and runs one query at a time; ' +
          'set DATABASE_URL to a PostgreSQL server to run several workers',
      });
    }
    if (
      value.ORDER_ENTRY_SIGN_IN === 'true' &&
      orderEntrySwitch(value.ORDER_ENTRY_PAGE, value.DATABASE_URL) === false
    ) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['ORDER_ENTRY_SIGN_IN'],
        message: 'needs the order entry page (ORDER_ENTRY_PAGE=true): the sign-in link opens it',
      });
    }
  });

/**
 * Every variable as the schema reads it from `env` (before it is shaped into AppConfig): with an
 * empty `env`, the defaults. The docs' defaults are checked against it
 * (test/unit/documented-defaults.test.ts).
 */
export const readEnvironment = (env: Record<string, string> = {}): Record<string, unknown> => {
  const read: Record<string, unknown> = EnvironmentSchema.parse(env);
  return Object.fromEntries(Object.keys(EnvironmentSchema.innerType().shape).map((name) => [name, read[name]]));
};

const ConfigSchema = EnvironmentSchema.transform((value) => ({
  port: value.PORT,
  host: value.HOST,
  basePath: value.BASE_PATH,
  database: {
    url: value.DATABASE_URL,
    poolMax: value.DATABASE_POOL_MAX,
    dataDir: value.DATA_DIR,
    /** Longest wait for a new connection to open. */
    connectTimeoutMs: value.DATABASE_CONNECT_TIMEOUT_MS,
    /**
     * How long after its arrival a request may still wait for a pooled connection: past it, or
     * when it could not start by then, it is shed (503 overloaded; db/connection-gate.ts).
     */
    requestDeadlineMs: value.REQUEST_DEADLINE_MS,
    statementTimeoutMs: value.DATABASE_STATEMENT_TIMEOUT_MS,
    lockTimeoutMs: value.DATABASE_LOCK_TIMEOUT_MS,
  },
  redisUrl: value.REDIS_URL,
  /** Start of every key this service writes to Redis, so several deployments can share one. */
  redisKeyPrefix: value.REDIS_KEY_PREFIX,
  /** How long a Redis answer may take before the rate limit counts in this process instead. */
  redisTimeoutMs: value.REDIS_TIMEOUT_MS,
  auth: {
    jwt: {
      secret: value.JWT_SECRET,
      publicKey: value.JWT_PUBLIC_KEY,
      issuer: value.JWT_ISSUER,
      audience: value.JWT_AUDIENCE,
      /** A token without a `locations` claim is refused (scope fails closed) instead of seeing every location. */
      requireLocations: value.JWT_REQUIRE_LOCATIONS,
    },
    sessionCookieName: value.SESSION_COOKIE_NAME,
    allowedOrigins: value.ALLOWED_ORIGINS,
    /**
     * Longest time an API key or session is believed after the database stopped holding it live
     * (0: looked up on every request). Announced changes drop it at once; this bounds a missed one.
     */
    cacheTtlMs: value.AUTH_CACHE_TTL_MS,
  },
  /** Longest time a dropdown's records are reused without hearing of a change (0: read every time). */
  masterDataCacheTtlMs: value.MASTER_DATA_CACHE_TTL_MS,
  rateLimitPerMinute: value.RATE_LIMIT_PER_MINUTE,
  trustProxy: value.TRUST_PROXY,
  bodyLimit: value.BODY_LIMIT,
  logLevel: value.LOG_LEVEL,
  seedDemoData: value.SEED_DEMO_DATA,
  /** How far past its series' counter a client-supplied number of that series may be. */
  orderNumberMaxAhead: value.ORDER_NUMBER_MAX_AHEAD,
  /** Where "today" is: the calendar date the server picks when a request gives none. */
  businessTimeZone: value.BUSINESS_TIME_ZONE,
  /** How far past its ordered quantity a line may be delivered, net of returns (exact decimal text, percent). */
  overDeliveryTolerancePercent: value.OVER_DELIVERY_TOLERANCE_PERCENT,
  idempotency: {
    ttlHours: value.IDEMPOTENCY_TTL_HOURS,
    waitSeconds: value.IDEMPOTENCY_WAIT_SECONDS,
    /** The wait is a series of lock waits of at most this length, each ending before its statement's timeout. */
    waitSliceMs: value.DATABASE_LOCK_TIMEOUT_MS,
    purgeIntervalSeconds: value.IDEMPOTENCY_PURGE_INTERVAL_SECONDS,
  },
  requireIfMatch: value.REQUIRE_IF_MATCH,
  http: {
    keepAliveTimeoutMs: value.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    headersTimeoutMs: value.HTTP_HEADERS_TIMEOUT_MS,
    /** Longest time to receive a whole request (headers and body); a trickled body is cut then. */
    requestTimeoutMs: value.HTTP_REQUEST_TIMEOUT_MS,
  },
  shutdown: {
    /** After SIGTERM, how long /readyz answers 503 while every request is still served. */
    drainDelayMs: value.SHUTDOWN_DRAIN_DELAY_MS,
    /** Then, how long in-flight requests may take before their connections are cut. */
    timeoutMs: value.SHUTDOWN_TIMEOUT_MS,
  },
  /** Worker processes serving the port (node:cluster); 1 is a single process, no cluster. */
  webConcurrency: value.WEB_CONCURRENCY,
  /** Prometheus metrics on a port of their own, apart from the API; off when METRICS_PORT is unset. */
  metrics: value.METRICS_PORT === undefined ? undefined : { port: value.METRICS_PORT, host: value.METRICS_HOST },
  /** OpenTelemetry tracing, exported over OTLP/HTTP; off when OTEL_EXPORTER_OTLP_ENDPOINT is unset. */
  tracing:
    value.OTEL_EXPORTER_OTLP_ENDPOINT === undefined
      ? undefined
      : {
          endpoint: value.OTEL_EXPORTER_OTLP_ENDPOINT,
          serviceName: value.OTEL_SERVICE_NAME,
          recordQuery: value.TRACING_RECORD_QUERY,
        },
  events: {
    retentionDays: value.EVENT_RETENTION_DAYS,
    purgeIntervalSeconds: value.EVENT_PURGE_INTERVAL_SECONDS,
  },
  /** The licence quota's running total (licences/licence-holdings-jobs.ts): its fold and its recount. */
  licenceHoldings: {
    foldIntervalSeconds: value.LICENCE_FOLD_INTERVAL_SECONDS,
    recountIntervalSeconds: value.LICENCE_RECOUNT_INTERVAL_SECONDS,
  },
  /**
   * The reference order entry page at /order-entry/ (apps/order-entry), and its sign-in link
   * that turns a host session's value into the session cookie (a stand-in for the host's login).
   */
  orderEntry: {
    page: orderEntrySwitch(value.ORDER_ENTRY_PAGE, value.DATABASE_URL),
    signIn:
      orderEntrySwitch(value.ORDER_ENTRY_PAGE, value.DATABASE_URL) &&
      orderEntrySwitch(value.ORDER_ENTRY_SIGN_IN, value.DATABASE_URL),
  },
  webhooks: {
    /** The wait before each retry of a failed delivery (ms); its length is the number of retries. */
    retryScheduleMs: value.WEBHOOK_RETRY_SCHEDULE,
    /** Longest wait for a receiver's whole answer. */
    timeoutMs: value.WEBHOOK_TIMEOUT_MS,
    /** Deliveries this process sends at once; 0: it sends none (other instances do). */
    concurrency: value.WEBHOOK_CONCURRENCY,
    /**
     * Deliveries to one endpoint under way at once, across every process: a hanging or replaying
     * receiver holds at most this many sending slots, the rest serve the other endpoints.
     */
    endpointConcurrency: value.WEBHOOK_ENDPOINT_CONCURRENCY,
    /** http:// endpoints accepted (otherwise https:// only). */
    allowHttp: value.WEBHOOK_ALLOW_HTTP,
    /** Endpoints on loopback, private, link-local and other non-public addresses accepted. */
    allowPrivateNetworks: value.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
  },
  bulk: {
    /** Most orders in one POST /sales-orders/bulk (more is 400). */
    maxOrders: value.BULK_MAX_ORDERS,
    /** Orders per minute one client address may send through bulk creates (429 beyond). */
    ordersPerMinute: value.BULK_ORDERS_PER_MINUTE,
  },
  imports: {
    /** Largest file POST /imports takes. */
    maxBytes: value.IMPORT_MAX_BYTES,
    /** Most orders in one file. */
    maxOrders: value.IMPORT_MAX_ORDERS,
    /** Orders a job creates before it records its progress and hands over to the next job. */
    chunkSize: value.IMPORT_CHUNK_SIZE,
    /** A chunk's job not finished within this is taken to be of a dead process and run again. */
    chunkTimeoutSeconds: value.IMPORT_CHUNK_TIMEOUT_SECONDS,
    /** Files read at once; more wait their turn until their request's deadline (503 overloaded after). */
    uploadsConcurrent: value.IMPORT_UPLOADS_CONCURRENT,
    /**
     * How long each statement of an upload in its turn waits for a connection (REQUEST_DEADLINE_MS,
     * counted from the statement): a large file takes longer than one request's deadline to read.
     */
    uploadStatementWaitMs: value.REQUEST_DEADLINE_MS,
  },
  reports: {
    /** Most rows a CSV report answers (more is 422 report_too_large). */
    csvMaxRows: value.REPORT_CSV_MAX_ROWS,
    /**
     * How long a report's statement may run: it reads every matching order or line, far more
     * than the short statements DATABASE_STATEMENT_TIMEOUT_MS bounds.
     */
    statementTimeoutMs: value.REPORT_STATEMENT_TIMEOUT_MS,
  },
}));

export type AppConfig = z.output<typeof ConfigSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Reads and validates the configuration; throws a ConfigError naming every bad variable. */
export const loadConfig = (env: NodeJS.ProcessEnv = process.env): AppConfig => {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    // Values are left out of the message: a bad value may be a secret.
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  return parsed.data;
};
