import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import { serialize } from 'cookie';
import express, { type Router } from 'express';

import type { SessionService } from '../auth/sessions.js';
import { notFound } from '../errors/domain-error.js';
import type { AppConfig } from '../startup/config.js';
import { securityHeaders } from './security-headers.js';

/** Where the page is served: at the root, beside BASE_PATH, as a host's own pages would be. */
export const ORDER_ENTRY_PATH = '/order-entry';

/** The `http_route` metrics label of the page, and that of its assets. */
export const PAGE_ROUTE = `${ORDER_ENTRY_PATH}/`;
export const ASSETS_ROUTE = `${ORDER_ENTRY_PATH}/assets/*`;

/**
 * The page's own Content-Security-Policy: the service's, with styles from its own origin only
 * (helmet's default also lets `https:` and inline styles through, which the page never needs:
 * it has one stylesheet and sets no style attribute). docs/order-entry.md promises this.
 */
const pageHeaders = securityHeaders({
  contentSecurityPolicy: { directives: { upgradeInsecureRequests: null, styleSrc: ["'self'"] } },
});

/** The built page (apps/order-entry/dist), found through the workspace package as deployed. */
const defaultDistDir = (): string | undefined => {
  try {
    const manifest = createRequire(import.meta.url).resolve('@sales-order/order-entry/package.json');
    return path.join(path.dirname(manifest), 'dist');
  } catch {
    return undefined;
  }
};

/**
 * The reference order entry page (apps/order-entry), when ORDER_ENTRY_PAGE is on: its
 * index.html with the API's address set to BASE_PATH, and its hashed assets. The page is served
 * under the service's Content-Security-Policy narrowed to `style-src 'self'`: it has no inline
 * script or style.
 *
 * With ORDER_ENTRY_SIGN_IN (a demo database), `sign-in?session=<value>` stands in for the host
 * ERP's login: it sets the session cookie to a live host session's value and opens the page.
 * Only that: knowing the value already gives its access; nothing is created here.
 */
export const orderEntryRouter = (
  { basePath, auth, orderEntry }: Pick<AppConfig, 'basePath' | 'auth' | 'orderEntry'>,
  sessions: SessionService,
  distDir = defaultDistDir(),
): Router => {
  // Strict: /order-entry (redirected) and /order-entry/ (the page) are different routes.
  const router = express.Router({ strict: true });
  const indexFile = distDir === undefined ? undefined : path.join(distDir, 'index.html');
  const index =
    indexFile !== undefined && existsSync(indexFile)
      ? readFileSync(indexFile, 'utf8').replace(
          '<meta name="sales-order-api" content="/api" />',
          `<meta name="sales-order-api" content="${basePath || '/'}" />`,
        )
      : undefined;

  router.get(ORDER_ENTRY_PATH, (_req, res) => {
    res.redirect(301, `${ORDER_ENTRY_PATH}/`);
  });
  router.get([`${ORDER_ENTRY_PATH}/`, `${ORDER_ENTRY_PATH}/index.html`], pageHeaders, (_req, res, next) => {
    // One metrics label for the page, whichever of its two addresses was asked for.
    res.locals.httpRoute = PAGE_ROUTE;
    if (index === undefined) {
      next(notFound('The order entry page is not built: run pnpm build'));
      return;
    }
    // Always asked again: the assets it names change with each build.
    res.set('Cache-Control', 'no-cache').type('html').send(index);
  });
  if (distDir !== undefined) {
    router.use(
      `${ORDER_ENTRY_PATH}/assets`,
      // One metrics label for every asset (express.static matches no route of its own).
      (_req, res, next) => {
        res.locals.httpRoute = ASSETS_ROUTE;
        next();
      },
      // Names carry a content hash: a year's caching is safe.
      express.static(path.join(distDir, 'assets'), { index: false, immutable: true, maxAge: '365d', redirect: false }),
    );
  }
  if (orderEntry.signIn) {
    router.get(`${ORDER_ENTRY_PATH}/sign-in`, (req, res, next) => {
      const token = typeof req.query.session === 'string' ? req.query.session : '';
      sessions
        .authenticate(token)
        .then(() => {
          res
            .set('Cache-Control', 'no-store')
            .set('Referrer-Policy', 'no-referrer')
            .append(
              'Set-Cookie',
              serialize(auth.sessionCookieName, token, {
                path: '/',
                httpOnly: true,
                sameSite: 'lax',
                secure: req.secure,
              }),
            )
            .redirect(303, `${ORDER_ENTRY_PATH}/`);
        })
        .catch(next);
    });
  }
  return router;
};
