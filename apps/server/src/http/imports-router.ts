import { Readable } from 'node:stream';

import { IMPORT_MEDIA_TYPES, type ImportMediaType, type ImportResult, importsContract } from '@sales-order/contract';
import { initServer } from '@ts-rest/express';
import { stringify } from 'csv-stringify/sync';
import type { Request } from 'express';

import { importViewerOf } from '../imports/import-viewer.js';
import { RefusedImportError } from '../imports/start-import.js';
import type { Services } from '../services.js';
import { accessOf, identityOfCaller } from './access.js';
import { success } from './envelope.js';
import { BadRequestError } from './error-handler.js';
import { fileBodyStreamOf } from './file-body.js';
import { quotaKeyOf } from './rate-limit.js';

const s = initServer();

const RESULT_COLUMNS = ['order_ref', 'lines', 'status', 'sales_order_id', 'order_number', 'errors'] as const;

/**
 * Results as CSV for a spreadsheet: a cell that starts like a formula (=, +, -, @, tab, CR) is
 * escaped with a leading quote (csv-stringify's escape_formulas), so opening the file runs nothing.
 */
const resultsAsCsv = (results: ImportResult[], header: boolean): string =>
  stringify(
    results.map((result) => ({
      ...result,
      lines: result.lines.join(' '),
      errors: result.errors
        .map((error) => `${error.path ? `${error.path}: ` : ''}${error.message} [${error.code}]`)
        .join('; '),
    })),
    { header, columns: [...RESULT_COLUMNS], escape_formulas: true },
  );

const resultsAsJsonLines = (results: ImportResult[]): string =>
  results.map((result) => `${JSON.stringify(result)}\n`).join('');

const callerOf = (req: Pick<Request, 'access' | 'ip'>) => {
  const access = accessOf(req);
  return {
    owner: identityOfCaller(req),
    actor: access.subject,
    permissions: access.permissions,
    locations: access.locations,
    credential: access.credential,
    // Its orders count against the caller's bulk-order window, as a bulk create's do.
    quotaKey: quotaKeyOf(req),
  };
};

const viewerOf = (req: Pick<Request, 'access'>) => importViewerOf(accessOf(req));

/** The import routes bound to their use cases. Handlers only translate. */
export const createImportsRouter = ({ imports }: Services) =>
  s.router(importsContract, {
    startImport: async ({ headers, query, req, res }) => {
      // The file streams in (http/file-body.ts), as one of the route's media types (requireJsonBody).
      const mediaType = (req.is([...IMPORT_MEDIA_TYPES]) || 'text/csv') as ImportMediaType;
      try {
        const { started, replayed } = await imports.start(
          accessOf(req),
          callerOf(req),
          mediaType,
          fileBodyStreamOf(req),
          {
            allowDuplicates: query.allow_duplicates ?? false,
            idempotencyKey: headers['idempotency-key'],
          },
        );
        // A retry gets the import as it is now, not as it was queued.
        const answer = replayed ? await imports.get(started.import_id, viewerOf(req)) : started;
        if (replayed) res.setHeader('Idempotent-Replayed', 'true');
        res.setHeader('Location', `${req.baseUrl}/imports/${answer.import_id}`);
        return { status: 202, body: success(answer, 'Import queued') };
      } catch (error) {
        if (!(error instanceof RefusedImportError)) throw error;
        throw new BadRequestError(error.message, [{ path: '', message: error.message, code: error.code }]);
      }
    },
    listImports: async ({ req }) => ({ status: 200, body: success(await imports.list(viewerOf(req))) }),
    getImport: async ({ params, req }) => ({
      status: 200,
      body: success(await imports.get(params.id, viewerOf(req))),
    }),
    getImportResults: async ({ params, req, res }) => {
      const pages = await imports.results(params.id, viewerOf(req));
      const csv = req.accepts(['application/x-ndjson', 'application/json', 'text/csv']) === 'text/csv';
      if (csv) res.setHeader('Content-Disposition', `attachment; filename="import-${params.id}-results.csv"`);
      res.type(csv ? 'text/csv' : 'application/x-ndjson');
      const render = csv ? resultsAsCsv : resultsAsJsonLines;
      const text = async function* () {
        let first = true;
        for await (const page of pages) {
          yield render(page, first);
          first = false;
        }
      };
      // Streamed page by page (50,000 results need not sit in memory). ts-rest pipes a stream
      // body as it is, with the Content-Type set above; the contract's type is the text it makes.
      return { status: 200, body: Readable.from(text()) as unknown as string };
    },
    cancelImport: async ({ params, req }) => ({
      status: 200,
      body: success(await imports.cancel(params.id, viewerOf(req)), 'Import cancelled after its current chunk'),
    }),
  });
