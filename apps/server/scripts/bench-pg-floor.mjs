// The benchmark's floor for the reads PostgreSQL renders: a bare node:http server
// that runs the service's own statement (the same SQL text from the build, with the same
// parameters) through one `pg` round trip and answers its text in the envelope, and nothing else:
// no Express, ts-rest, zod, Prisma, middleware or authentication. What a read can cost at
// least on this stack's database driver; `pnpm bench` reads GET order and the list page
// against it. Named statements, as the service prepares them (db/database.ts), and a pool of the
// service's default size.
//
//   GET /order/:id   the read statement of one live order (order-read-store.ts), unscoped
//   GET /list        the page statement of the default list (order-list-store.ts): 50 newest
import http from 'node:http';

import { encodeListCursor } from '@sales-order/contract';
import pg from 'pg';

// PG_FLOOR_DIST: another build's statements (a before/after comparison); this build's by default.
const dist = process.env.PG_FLOOR_DIST ?? new URL('../dist', import.meta.url).pathname;
const { pageQuery } = await import(`${dist}/orders/store/order-list-store.js`);
const { liveOrderQuery } = await import(`${dist}/orders/store/order-read-store.js`);
// Every location: the system's Scope (auth/scope.ts); a build from before Scope took null.
const everyLocation = (await import(`${dist}/auth/scope.js`).catch(() => undefined))?.systemScope ?? null;

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const LIMIT = 50;
const SORT = '-sales_order_date';

/** Answers the text of `parts` written one after the other (as the service does), not joined first. */
const answer = (res, status, ...parts) => {
  const length = parts.reduce((sum, part) => sum + Buffer.byteLength(part), 0);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': length });
  for (const part of parts.slice(0, -1)) res.write(part);
  res.end(parts.at(-1));
};

const run = async (name, query) => (await pool.query({ name, text: query.text, values: query.values })).rows[0];

const server = http.createServer((req, res) => {
  const order = /^\/order\/(\d+)$/.exec(req.url ?? '');
  const work = order
    ? run('order', liveOrderQuery(Number(order[1]), everyLocation)).then((row) =>
        row ? answer(res, 200, '{"success":true,"data":', row.json, '}') : answer(res, 404, '{"success":false}'),
      )
    : req.url === '/list'
      ? run('list', pageQuery({ scope: everyLocation, includeDeleted: false }, SORT, undefined, LIMIT)).then((row) => {
          const next =
            row.more && row.last_key !== null
              ? JSON.stringify(encodeListCursor({ s: SORT, k: row.last_key, i: row.last_id }))
              : 'null';
          answer(res, 200, '{"success":true,"data":{"items":', row.items, `,"next_cursor":${next}}}`);
        })
      : Promise.resolve(answer(res, 404, '{"success":false}'));
  work.catch((error) => answer(res, 500, JSON.stringify({ success: false, error: String(error) })));
});
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ msg: 'listening', port: server.address().port }));
});
process.on('SIGTERM', () => server.close(() => void pool.end().finally(() => process.exit(0))));
