import { createOpenApiDocument } from '@sales-order/contract/openapi';
import express, { type Router } from 'express';
import swaggerUi from 'swagger-ui-express';

import type { AppConfig } from '../config.js';

/**
 * `{BASE_PATH}/openapi.json` (the document generated from the contract) and `{BASE_PATH}/docs`
 * (Swagger UI, its assets served from this process, so it works without internet access).
 */
export const apiDocsRouter = ({
  basePath,
  auth,
  bodyLimit,
}: Pick<AppConfig, 'basePath' | 'auth' | 'bodyLimit'>): Router => {
  const document = createOpenApiDocument({
    serverUrl: basePath || '/',
    sessionCookieName: auth.sessionCookieName,
    bodyLimit,
  });
  const router = express.Router();
  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  router.use(
    '/docs',
    swaggerUi.serveFiles(document),
    swaggerUi.setup(document, {
      customSiteTitle: 'Sales order service API',
      swaggerOptions: { persistAuthorization: false, tryItOutEnabled: false },
    }),
  );
  return router;
};
