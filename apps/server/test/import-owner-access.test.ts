import { Permission } from '@sales-order/contract';
import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { createSession } from './support/credentials.js';
import { eventually } from './support/eventually.js';
import { importLine } from './support/fixtures.js';
import { orderWriteGate } from './support/order-write-gate.js';
import { useServerWithFixtures } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

/**
 * An import runs only while its starter's access does: each chunk looks at the starter's
 * credential as it is now (an API key revoked, a session's permissions changed by the host, a
 * token past its exp end it as `failed`, `owner_access_revoked`), and `imports.admin` sees and
 * cancels every import inside its own locations.
 */

const CHUNK = 5;
const ORDERS = 60;
const ERP_ORIGIN = 'https://erp.example.com';
const IMPORTER = [Permission.import, Permission.create, Permission.read];

describe("imports follow their starter's access", () => {
  const suite = useServerWithFixtures({
    IMPORT_CHUNK_SIZE: String(CHUNK),
    IMPORT_MAX_ORDERS: '200',
    ALLOWED_ORIGINS: ERP_ORIGIN,
  });
  const prisma = () => suite.server.database.prisma;

  const fileOf = (tag: string) =>
    Array.from({ length: ORDERS }, (_, index) => importLine(suite.fixtures, `${tag}-${index}`)).join('\n');
  /** A request as a caller with these headers (`*` by the suite's token when none). */
  const as = (headers: Record<string, string>) => ({
    get: (path: string) => request(suite.server.api).get(path).set(headers),
    post: (path: string, body?: string | object) => {
      const call = request(suite.server.api).post(path).set(headers);
      return typeof body === 'string' ? call.set('Content-Type', 'application/x-ndjson').send(body) : call.send(body);
    },
  });
  const bearer = async (
    permissions: string[],
    subject: string,
    extra: object = {},
    expiresIn: string | number = '1h',
  ) => ({
    Authorization: `Bearer ${await signJwt({ payload: { permissions, ...extra }, subject, expiresIn })}`,
  });
  /** The import as the suite's `*` caller (imports.admin by `*`) reads it. */
  const importOf = async (id: number) =>
    (await suite.server.http.get(`/imports/${id}`)).body.data as Record<string, unknown>;
  const ended = async (id: number) => {
    let last: Record<string, unknown> = {};
    await eventually(async () => {
      last = await importOf(id);
      return last.state !== 'queued' && last.state !== 'running';
    }, 60_000);
    return last;
  };
  const madeWith = (tag: string) =>
    prisma().salesOrder.count({ where: { customerReference: { startsWith: `${tag}-` } } });

  /**
   * Starts an import of ORDERS orders as `starter` while order writes wait, then, once it runs,
   * takes the starter's access away (`revoke`) before any of its orders is written.
   */
  const startThenRevoke = async (tag: string, starter: Record<string, string>, revoke: () => Promise<void>) => {
    const gate = await orderWriteGate(suite.server.database.pool.options.connectionString);
    try {
      await gate.shut();
      const started = await as(starter).post('/imports', fileOf(tag));
      expect(started.status, JSON.stringify(started.body)).toBe(202);
      const id = started.body.data.import_id as number;
      // Taken up by a job (on a slow machine a token may have expired by then: it ends at once).
      await eventually(async () => (await importOf(id)).state !== 'queued', 30_000);
      await revoke();
      await gate.open();
      return id;
    } finally {
      await gate.close();
    }
  };

  /** Ended as failed for its starter's access, with no more orders than the two chunks under way made. */
  const expectStoppedByAccess = async (id: number, tag: string) => {
    const done = await ended(id);
    expect(done).toMatchObject({ state: 'failed', error: expect.stringMatching(/^owner_access_revoked: /) });
    const made = await madeWith(tag);
    expect(made).toBe(done.orders_created);
    expect(made).toBeLessThanOrEqual(2 * CHUNK);
    // And it stays that way: no job goes on making orders.
    expect(await madeWith(tag)).toBe(made);
  };

  it('an API key revoked while its import runs: the import ends failed, owner_access_revoked', async () => {
    const created = await suite.server.http.post('/api-keys').send({ name: 'importer', permissions: IMPORTER });
    const key = created.body.data as { id: number; secret: string };
    const id = await startThenRevoke('revoked-key', { Authorization: `ApiKey ${key.secret}` }, async () => {
      expect((await suite.server.http.post(`/api-keys/${key.id}/revoke`).send({})).status).toBe(200);
    });
    await expectStoppedByAccess(id, 'revoked-key');
  });

  it('a host session that loses sales_orders.create while its import runs: the import ends failed', async () => {
    const session = await createSession(prisma(), { userId: 'clerk-9', permissions: IMPORTER });
    const id = await startThenRevoke('session', { Cookie: session.cookie, Origin: ERP_ORIGIN }, async () => {
      // As the host changes a user's rights: its own table.
      await prisma().$executeRaw`UPDATE sessions SET permissions = ${[Permission.import, Permission.read]}
        WHERE user_id = 'clerk-9'`;
    });
    await expectStoppedByAccess(id, 'session');
  });

  it("a host session narrowed to fewer locations than its import's: the import ends failed", async () => {
    const session = await createSession(prisma(), { userId: 'clerk-10', permissions: IMPORTER });
    const id = await startThenRevoke('narrowed', { Cookie: session.cookie, Origin: ERP_ORIGIN }, async () => {
      // Started for every location; the host now limits the user to Dhaka.
      await prisma().$executeRaw`UPDATE sessions SET locations = ${[suite.fixtures.locations.dhaka.code]}::text[]
        WHERE user_id = 'clerk-10'`;
    });
    await expectStoppedByAccess(id, 'narrowed');
  });

  it("a JWT's import runs no chunk past the token's exp", async () => {
    const exp = Math.floor(Date.now() / 1000) + 5;
    const token = await bearer(IMPORTER, 'short-lived', {}, exp);
    const id = await startThenRevoke('jwt', token, async () => {
      await eventually(async () => Date.now() > exp * 1000 + 100, 10_000);
    });
    await expectStoppedByAccess(id, 'jwt');
  });

  it('imports.admin sees, reads the results of and cancels every import inside its locations; no one else does', async () => {
    const { chattogram, dhaka } = suite.fixtures.locations;
    const created = await suite.server.http
      .post('/api-keys')
      .send({ name: 'ctg importer', permissions: IMPORTER, locations: [chattogram.id] });
    const owner = { Authorization: `ApiKey ${(created.body.data as { secret: string }).secret}` };
    const admin = await bearer([Permission.import, Permission.importsAdmin], 'ctg-admin', {
      locations: [chattogram.id],
    });
    const adminElsewhere = await bearer([Permission.import, Permission.importsAdmin], 'dhk-admin', {
      locations: [dhaka.id],
    });
    const otherImporter = await bearer(IMPORTER, 'other-importer');

    const gate = await orderWriteGate(suite.server.database.pool.options.connectionString);
    let id: number;
    try {
      await gate.shut();
      const started = await as(owner).post('/imports', fileOf('admin'));
      expect(started.status).toBe(202);
      id = started.body.data.import_id as number;

      for (const stranger of [adminElsewhere, otherImporter]) {
        expect((await as(stranger).get(`/imports/${id}`)).status).toBe(404);
        expect((await as(stranger).get(`/imports/${id}/results`)).status).toBe(404);
        expect((await as(stranger).post(`/imports/${id}/cancel`)).status).toBe(404);
        const listed = (await as(stranger).get('/imports')).body.data.items as { import_id: number }[];
        expect(listed.map((item) => item.import_id)).not.toContain(id);
      }
      expect((await as(admin).get(`/imports/${id}`)).status).toBe(200);
      expect((await as(admin).get(`/imports/${id}/results`)).status).toBe(200);
      const listed = (await as(admin).get('/imports')).body.data.items as { import_id: number }[];
      expect(listed.map((item) => item.import_id)).toContain(id);
      const cancelled = await as(admin).post(`/imports/${id}/cancel`);
      expect(cancelled.status).toBe(200);
    } finally {
      await gate.close();
    }
    const done = await ended(id);
    expect(done.state).toBe('cancelled');
    expect(await madeWith('admin')).toBe(done.orders_created);
    expect(done.orders_created).toBeLessThan(ORDERS);
  });
});
