import { createOpenApiDocument } from '@sales-order/contract/openapi';
import express, { type Router } from 'express';
import swaggerUi from 'swagger-ui-express';

import type { AppConfig } from '../startup/config.js';

/**
 * Swagger UI sends the Authorize dialog's API-key field as the whole Authorization header, so a
 * reader who pastes the bare key (as the CLI prints it) would get 401: a value that is one API
 * key and nothing else gets its `ApiKey ` scheme. Runs in the browser: swagger-ui-express writes
 * this function's source into swagger-ui-init.js, so it may use nothing from this module.
 */
function addApiKeyScheme(request: { headers: Record<string, string> }) {
  const value = request.headers.Authorization;
  if (typeof value === 'string' && /^sok_[A-Za-z0-9_-]+$/.test(value.trim()))
    request.headers.Authorization = `ApiKey ${value.trim()}`;
  return request;
}

/**
 * `{BASE_PATH}/openapi.json` (the document generated from the contract) and `{BASE_PATH}/docs`
 * (Swagger UI, its assets served from this process, so it works without internet access). The
 * document is generated on the first request for either: about half a second of CPU (its
 * components lifted out of 370 KB of schemas) that a start need not pay, nor every test's server.
 */
export const apiDocsRouter = ({
  basePath,
  auth,
  bodyLimit,
  bulk,
}: Pick<AppConfig, 'basePath' | 'auth' | 'bodyLimit' | 'bulk'>): Router => {
  // serveFiles writes swagger-ui-init.js from its own options: both get the same ones.
  const options = {
    customSiteTitle: 'Sales order service API',
    swaggerOptions: { persistAuthorization: false, tryItOutEnabled: false, requestInterceptor: addApiKeyScheme },
  };
  let docs: { document: ReturnType<typeof createOpenApiDocument>; ui: Router } | undefined;
  const docsOnce = () => {
    if (docs) return docs;
    const document = createOpenApiDocument({
      serverUrl: basePath || '/',
      sessionCookieName: auth.sessionCookieName,
      bodyLimit,
      bulkMaxOrders: bulk.maxOrders,
    });
    docs = {
      document,
      ui: express.Router().use(swaggerUi.serveFiles(document, options), swaggerUi.setup(document, options)),
    };
    return docs;
  };
  const router = express.Router();
  router.get('/openapi.json', (_req, res) => {
    res.json(docsOnce().document);
  });
  router.use('/docs', (req, res, next) => docsOnce().ui(req, res, next));
  return router;
};
