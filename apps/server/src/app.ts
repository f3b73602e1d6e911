import { salesOrdersContract } from '@sales-order/contract';
import { createExpressEndpoints } from '@ts-rest/express';
import express, { type Express } from 'express';
import helmet from 'helmet';
import type { AppConfig } from './config.js';
import type { Database } from './db/database.js';
import { apiDocsRouter } from './http/api-docs.js';
import { failure, success } from './http/envelope.js';
import { errorHandler, notFoundHandler, requireJsonBody } from './http/error-handler.js';
import { requestLogging } from './http/request-logging.js';
import { createSalesOrdersRouter } from './http/sales-orders-router.js';
import type { Logger } from './logger.js';
import { createServices } from './services.js';

export interface AppDependencies {
  config: AppConfig;
  logger: Logger;
  database: Database;
}

/** The Express application, without listening: tests and main.ts both build it here. */
export const createApp = ({ config, logger, database }: AppDependencies): Express => {
  const app = express();
  app.disable('x-powered-by');
  // No automatic body-hash ETags: an order's ETag will be its version (optimistic concurrency).
  app.set('etag', false);
  app.set('trust proxy', config.trustProxy);
  // Plain key=value parsing: no nested objects or prototype tricks from the query string.
  app.set('query parser', 'simple');

  app.use(requestLogging(logger));
  // No upgrade-insecure-requests: behind plain HTTP (an internal network) it would send the
  // docs page's own assets to an https:// address that does not exist.
  app.use(helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } }));

  app.get('/healthz', (_req, res) => {
    res.json(success({ status: 'ok' }));
  });
  app.get('/readyz', async (req, res) => {
    try {
      await database.ping();
      res.json(success({ status: 'ready' }));
    } catch (error) {
      req.log.warn({ err: error }, 'database not reachable');
      res.status(503).set('Retry-After', '5').json(failure(503, 'The database is not reachable'));
    }
  });

  app.use(config.basePath || '/', apiDocsRouter(config));

  const api = express.Router();
  api.use(requireJsonBody);
  api.use(express.json({ limit: config.bodyLimit, type: 'application/json' }));
  createExpressEndpoints(salesOrdersContract, createSalesOrdersRouter(createServices(database.prisma)), api, {
    logInitialization: false,
    // Validation failures go to errorHandler like every other error.
    requestValidationErrorHandler: (error, _req, _res, next) => next(error),
  });
  app.use(config.basePath || '/', api);

  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
};
