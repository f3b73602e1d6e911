import { Readable } from 'node:stream';

import { reportsContract } from '@sales-order/contract';
import { initServer } from '@ts-rest/express';

import type { Services } from '../services.js';
import { accessOf } from './access.js';
import { successRendered } from './envelope.js';

const s = initServer();

/** The report routes bound to their use cases. Handlers only translate. */
export const createReportsRouter = ({ reports }: Services) =>
  s.router(reportsContract, {
    getSalesReport: async ({ query, req, res }) => {
      const access = accessOf(req);
      const csv =
        query.format === 'csv' ||
        (query.format === undefined && req.accepts(['application/json', 'text/csv']) === 'text/csv');
      if (!csv) return { status: 200, body: successRendered(await reports.salesReport(access, query)) };
      // Refused (422 report_too_large) before anything is written, or streamed batch by batch.
      const text = await reports.salesReportCsv(access, query);
      res.setHeader('Content-Disposition', 'attachment; filename="sales-report.csv"');
      res.type('text/csv; charset=utf-8');
      // ts-rest pipes a stream body as it is, with the Content-Type set above; the contract's type is the JSON it also answers.
      return { status: 200, body: Readable.from(text) as never };
    },
  });
