import { apiContract, ServiceCode } from '@sales-order/contract';
import { createExpressEndpoints, initServer } from '@ts-rest/express';
import express, { type Express, type Request, type Response } from 'express';
import pTimeout from 'p-timeout';

import { createApiKeyAuthentication, LAST_USED_RESOLUTION_MS } from '../auth/api-keys.js';
import { createAuthenticator } from '../auth/authenticator.js';
import { createJwtSubjectScopes } from '../auth/jwt-subject-scopes.js';
import { createJwtVerifier } from '../auth/jwt-verifier.js';
import { createLastUsedRecorder } from '../auth/last-used-recorder.js';
import { resolveLocations } from '../auth/location-scopes.js';
import { createSessionService } from '../auth/sessions.js';
import { CREDENTIALS_CHANNEL, MASTER_DATA_CHANNEL } from '../db/change-notifications.js';
import { withRequestDeadline } from '../db/connection-gate.js';
import type { Database } from '../db/database.js';
import { transactionPort } from '../db/transactions.js';
import type { EventProcessing } from '../events/event-processing.js';
import { apiDocsRouter } from '../http/api-docs.js';
import { createApiKeysRouter } from '../http/api-keys-router.js';
import { authenticate } from '../http/authenticate.js';
import { requireFieldPermissions, requirePermission } from '../http/authorize.js';
import { createChangesRouter } from '../http/changes-router.js';
import { answerPreflight, corsForAllowedOrigins } from '../http/cors.js';
import { requireTrustedOriginForSessions } from '../http/csrf.js';
import {
  answerServiceUnavailable,
  contentionHandler,
  databaseUnavailableHandler,
  overloadHandler,
  uploadsBusyHandler,
} from '../http/database-unavailable.js';
import { createDeliveriesRouter } from '../http/deliveries-router.js';
import { sendRenderedJsonAsIs, success } from '../http/envelope.js';
import {
  errorHandler,
  isJsonContent,
  notFoundHandler,
  refuseMalformedUtf8,
  requireJsonBody,
  takesFileBody,
} from '../http/error-handler.js';
import { createEventsRouter } from '../http/events-router.js';
import { streamFileBody } from '../http/file-body.js';
import { createImportsRouter } from '../http/imports-router.js';
import { orderEntryRouter } from '../http/order-entry-page.js';
import { ordersPerMinutePerClient, rateLimitPerClient } from '../http/rate-limit.js';
import type { RedisClient } from '../http/redis-client.js';
import { createReportsRouter } from '../http/reports-router.js';
import { createSalesOrdersRouter } from '../http/sales-orders-router.js';
import { securityHeaders } from '../http/security-headers.js';
import { refuseUnknownQueryParameters } from '../http/unknown-query.js';
import { createWebhookEndpointsRouter } from '../http/webhook-endpoints-router.js';
import { createForeground } from '../jobs/foreground.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { DROPDOWN_TYPE_OF_TABLE } from '../master-data/master-data-repository.js';
import type { Logger } from '../observability/logger.js';
import { type Metrics, noMetrics } from '../observability/metrics.js';
import { useRequestLogging } from '../observability/request-logging.js';
import { createServices } from '../services.js';
import type { AppConfig } from './config.js';

export interface AppDependencies {
  config: AppConfig;
  logger: Logger;
  database: Database;
  /** The events' background work (relay, delivery queue), whose queue and sender the webhook routes use. */
  events: EventProcessing;
  /** The process's job queue (jobs/job-queue.ts), on which the imports' queue starts. */
  jobs: JobQueue;
  /** Shared state for N instances (rate-limit counts); absent when REDIS_URL is unset. */
  redis?: RedisClient;
  /** True from SIGTERM on, while the load balancer is given time to stop sending (main.ts). */
  isDraining?: () => boolean;
  /** Prometheus metrics (observability/metrics.ts); off unless METRICS_PORT is set. */
  metrics?: Metrics;
}

/** /readyz answers within a second even when the database does not. */
const READINESS_TIMEOUT_MS = 800;

/**
 * The Express application, without listening: tests and main.ts both build it here.
 *
 * Order of the checks on an API request, each before the next can run:
 * rate limit (429) -> authentication (401) -> cookie CSRF origin (403) -> route match (404) ->
 * route permission (403) -> unknown query parameters (400) -> JSON body (400) -> permissions the
 * body's field values ask for (403) -> contract validation (400) -> use case (404/422).
 */
export const createApp = ({
  config,
  logger,
  database,
  events,
  jobs,
  redis,
  isDraining = () => false,
  metrics = noMetrics,
}: AppDependencies): Express => {
  const app = express();
  // First, so that a request's duration covers everything the service does with it.
  if (metrics.observeRequests) app.use(metrics.observeRequests);
  app.disable('x-powered-by');
  // No automatic body-hash ETags: an order's ETag will be its version (optimistic concurrency).
  app.set('etag', false);
  // Answers rendered by PostgreSQL (GET order, the list page) go out as their text.
  sendRenderedJsonAsIs(app);
  app.set('trust proxy', config.trustProxy);
  // Plain key=value parsing: no nested objects or prototype tricks from the query string.
  app.set('query parser', 'simple');

  useRequestLogging(app, logger);
  // Requests under way, which the imports' chunks give way to (jobs/foreground.ts); not those
  // about imports themselves: a page following an import's progress does not slow it.
  const foreground = createForeground();
  const importsPath = `${config.basePath}/imports`;
  app.use((req, res, next) => {
    if (!req.path.startsWith(importsPath)) res.once('close', foreground.begin());
    next();
  });
  // Every request's deadline for a database connection counts from its arrival (db/connection-gate.ts).
  app.use((_req, res, next) => {
    res.locals.deadline = Date.now() + config.database.requestDeadlineMs;
    withRequestDeadline(res.locals.deadline as number, next);
  });
  // No upgrade-insecure-requests: behind plain HTTP (an internal network) it would send the
  // docs page's own assets to an https:// address that does not exist.
  app.use(securityHeaders({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } }));

  // Health checks come before the rate limit: a load balancer probing often from one address
  // must never be refused. They need no authentication and reveal nothing.
  app.get('/healthz', (_req, res) => {
    res.json(success({ status: 'ok' }));
  });
  // Not ready while shutting down (so traffic moves elsewhere first) or while the database does
  // not answer; a failed probe is reported like a failed request: once per outage.
  const answerReadiness = async (res: Response) => {
    if (isDraining()) {
      answerServiceUnavailable(res, { message: 'The service is shutting down', code: ServiceCode.shuttingDown });
      return;
    }
    try {
      await pTimeout(database.ping(), { milliseconds: READINESS_TIMEOUT_MS });
      res.json(success({ status: 'ready' }));
    } catch (error) {
      database.availability.reportFailure(error);
      answerServiceUnavailable(res, {
        message: 'The database is not reachable',
        code: ServiceCode.databaseUnavailable,
      });
    }
  };
  app.get('/readyz', (_req, res, next) => {
    answerReadiness(res).catch(next);
  });

  app.use(corsForAllowedOrigins(config.auth.allowedOrigins));
  const rateLimitSettings = {
    redis,
    redisKeyPrefix: config.redisKeyPrefix,
    redisTimeoutMs: config.redisTimeoutMs,
    logger,
    onRefused: () => metrics.rateLimitRefusals.inc(),
  };
  app.use(rateLimitPerClient({ ...rateLimitSettings, limitPerMinute: config.rateLimitPerMinute }));
  app.use(answerPreflight);

  // The OpenAPI document and its reference page need no authentication.
  app.use(config.basePath || '/', apiDocsRouter(config));

  const lastUsed = createLastUsedRecorder(database.prisma, { resolutionMs: LAST_USED_RESOLUTION_MS, logger });
  database.beforeClose(lastUsed.flush);
  const apiKeys = createApiKeyAuthentication(database.prisma, { cacheTtlMs: config.auth.cacheTtlMs, lastUsed });
  const sessions = createSessionService(database.prisma, { cacheTtlMs: config.auth.cacheTtlMs });
  // The reference order entry page, beside the API (it calls the API with the session cookie).
  if (config.orderEntry.page) app.use(orderEntryRouter(config, sessions));
  // Payloads are `api_key:<digest>` or `session:<digest>` (the triggers' migration).
  database.changes.on(CREDENTIALS_CHANNEL, (payload) => {
    const [kind, digest = ''] = payload.split(':', 2);
    (kind === 'session' ? sessions.cache : apiKeys.cache).invalidate(digest);
  });
  // One window per client for bulk creates and imports alike.
  const bulkOrdersPerMinute = ordersPerMinutePerClient({
    ...rateLimitSettings,
    limitPerMinute: config.bulk.ordersPerMinute,
  });
  const services = createServices(
    transactionPort(database.prisma, database.reader, { lockTimeoutMs: config.database.lockTimeoutMs }),
    config,
    events,
    jobs,
    foreground,
    (message) => (error) => logger.warn({ err: error }, message),
    { credentials: apiKeys, bulkQuota: bulkOrdersPerMinute },
  );
  // Payloads are the master table's name.
  database.changes.on(MASTER_DATA_CHANNEL, (table) => {
    const type = DROPDOWN_TYPE_OF_TABLE[table];
    if (type) services.dropdowns.invalidate(type);
  });
  database.changes.onReset(() => {
    apiKeys.cache.clear();
    sessions.cache.clear();
    services.dropdowns.clear();
  });
  const authenticator = createAuthenticator({
    jwt: createJwtVerifier(config.auth.jwt, (entries) => resolveLocations(database.prisma, entries)),
    apiKeys,
    sessions,
    jwtScopes: createJwtSubjectScopes(database.prisma, { cacheTtlMs: config.auth.cacheTtlMs, logger }),
  });
  const api = express.Router();
  api.use(authenticate(authenticator, config.auth.sessionCookieName));
  api.use(requireTrustedOriginForSessions(config.auth.allowedOrigins));
  // One router for every resource's routes, so the options below are checked against one contract.
  const routes = initServer().router(apiContract, {
    ...createSalesOrdersRouter(
      services,
      {
        requireIfMatch: config.requireIfMatch,
        bulk: {
          maxOrders: config.bulk.maxOrders,
          ordersPerMinute: bulkOrdersPerMinute,
        },
      },
      metrics,
    ),
    ...createChangesRouter(services, { requireIfMatch: config.requireIfMatch }),
    ...createEventsRouter(services),
    ...createWebhookEndpointsRouter(services),
    ...createImportsRouter(services),
    ...createApiKeysRouter(services),
    ...createReportsRouter(services),
    ...createDeliveriesRouter(services),
  });
  createExpressEndpoints(apiContract, routes, api, {
    logInitialization: false,
    // Per matched route: its permission first, then the body, so a caller without the
    // permission gets 403 whatever the body holds.
    globalMiddleware: [
      metrics.recordRoute,
      requirePermission,
      refuseUnknownQueryParameters,
      requireJsonBody,
      streamFileBody(takesFileBody, config.imports.maxBytes),
      express.json({
        limit: config.bodyLimit,
        // body-parser asks only once the request has a body, as requireJsonBody does.
        type: (req) => isJsonContent(req as Request),
        verify: refuseMalformedUtf8,
      }),
      // What the body's field values ask for (status confirmed, acknowledge_warnings), before validation.
      requireFieldPermissions,
      // Again: a body read from the socket's events runs outside the context set at arrival.
      (_req, res, next) => withRequestDeadline(res.locals.deadline as number, next),
    ],
    // Validation failures go to errorHandler like every other error.
    requestValidationErrorHandler: (error, _req, _res, next) => next(error),
  });
  app.use(config.basePath || '/', api);

  app.use(notFoundHandler);
  app.use(contentionHandler);
  app.use(overloadHandler);
  app.use(uploadsBusyHandler);
  app.use(databaseUnavailableHandler(database.availability, () => metrics.databaseUnavailable.inc()));
  app.use(errorHandler);
  return app;
};
