// The benchmark's second baseline: what the design card's fixed stack costs by itself. Express 4
// with @ts-rest/express serving the service's own contract (its zod schemas validate the same
// requests), and for a read one round trip through Prisma 7 over the same adapter and pool size
// as the service, and nothing else: no logging, security headers, rate limit, authentication,
// arithmetic or mapping. Each route answers the exact bytes the service answered for the same
// request (FLOOR_ANSWERS, captured by the bench), so the response work is the same too.
// `pnpm bench` runs it on the same Node binary as the service, after `pnpm build`.
import { PrismaPg } from '@prisma/adapter-pg';
import { salesOrdersContract } from '@sales-order/contract';
import { createExpressEndpoints, initServer } from '@ts-rest/express';
import express from 'express';
import pg from 'pg';

import { PrismaClient } from '../dist/generated/prisma/client.js';

const answers = JSON.parse(process.env.FLOOR_ANSWERS ?? '{}');
const prisma = process.env.DATABASE_URL
  ? new PrismaClient({
      adapter: new PrismaPg(new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 })),
      errorFormat: 'minimal',
    })
  : undefined;

const s = initServer();
const notServed = async () => ({ status: 404, body: { success: false } });
const router = Object.fromEntries(Object.keys(salesOrdersContract).map((route) => [route, notServed]));
router.calculateTotals = async () => ({ status: 200, body: answers.calculateTotals });
// A round trip that touches no table: the cost of asking the database at all.
router.getSalesOrder = async ({ params }) => {
  if (prisma) await prisma.$queryRaw`SELECT ${params.id}::int AS id`;
  return { status: 200, body: answers.getSalesOrder };
};
// The list page's bytes after the same one round trip.
router.listSalesOrders = async () => {
  if (prisma) await prisma.$queryRaw`SELECT 1 AS one`;
  return { status: 200, body: answers.listSalesOrders };
};

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
const api = express.Router();
createExpressEndpoints(salesOrdersContract, s.router(salesOrdersContract, router), api, {
  logInitialization: false,
  globalMiddleware: [express.json()],
});
app.use('/api', api);
const server = app.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ msg: 'listening', port: server.address().port }));
});
process.on('SIGTERM', () => server.close(() => void prisma?.$disconnect().finally(() => process.exit(0))));
