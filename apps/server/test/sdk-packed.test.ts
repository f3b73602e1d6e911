import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createApiKey } from './support/credentials.js';
import { createFixtures, type Fixtures } from './support/fixtures.js';
import { CONSUMER_COMPILER_OPTIONS, installPackedSdk } from './support/packed-sdk.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

const run = promisify(execFile);
const repositoryRoot = path.resolve(import.meta.dirname, '..', '..', '..');
const tsc = path.join(repositoryRoot, 'apps', 'server', 'node_modules', '.bin', 'tsc');

/**
 * One script body for both module systems: it drives every route through the SDK and prints
 * what came back, so the test can check it.
 */
const consumerScript = (importLine: string) => `${importLine}
const { baseUrl, auth, ids } = JSON.parse(process.env.SDK_TEST);
const client = createSalesOrderClient({ baseUrl, auth });
const main = async () => {
  const out = {};
  out.created = await client.createSalesOrder({
    customer_id: ids.customerId,
    sales_order_date: '2026-11-15',
    location_id: ids.locationId,
    details: [{ product_id: ids.productId, packsize_id: ids.packsizeId, quantity: 3, rate: 33.333 }],
    other_charges: [{ description: 'Carriage', amount: 150 }],
  });
  const id = out.created.sales_order_id;
  out.read = await client.getSalesOrder(id);
  out.updated = await client.updateSalesOrder(id, { remarks: 'via the SDK', other_charges: [] });
  out.readAfterUpdate = await client.getSalesOrder(id);
  out.totals = await client.calculateTotals({ details: [{ quantity: 1, rate: 0.1 }, { quantity: 1, rate: 0.2 }] });
  out.licence = await client.validateLicence({ sales_order_details: [{ product_id: ids.productId, quantity: 1 }] });
  out.maxNumber = await client.getMaxNumber({ year_id: ids.yearId, location_id: ids.locationId });
  out.dropdown = await client.getDropdownOptions('locations', ids.locationId);
  // Write safety: a repeated key returns the first order; a stale ifMatch is a typed 412.
  const idempotencyKey = 'packed-' + Math.random().toString(36).slice(2);
  const keyed = () => client.createSalesOrder({ customer_id: ids.customerId, sales_order_date: '2026-11-15',
    location_id: ids.locationId, details: [{ product_id: ids.productId, quantity: 1, rate: 5 }] }, { idempotencyKey });
  out.keyedTwice = [await keyed(), await keyed()];
  out.stale = await client.updateSalesOrder(id, { remarks: 'stale' }, { ifMatch: 1 }).then(() => 'no error', (error) => ({
    isApiError: error instanceof SalesOrderApiError, isPreconditionFailed: error instanceof SalesOrderPreconditionFailedError,
    name: error.name, status: error.status, currentVersion: error.currentVersion }));
  out.unreachable = await createSalesOrderClient({ baseUrl: 'http://127.0.0.1:9/api', retry: { attempts: 1 } }).getSalesOrder(id)
    .then(() => 'no error', (error) => ({ isNetworkError: error instanceof SalesOrderNetworkError, name: error.name }));
  out.deleted = await client.deleteSalesOrder(id, { ifMatch: out.readAfterUpdate.version });
  // The lifecycle: confirm and close one order; cancel and amend another; a refused transition is a typed 409.
  const second = (await client.createSalesOrder({ customer_id: ids.customerId, sales_order_date: '2026-11-15',
    location_id: ids.locationId, details: [{ product_id: ids.productId, quantity: 2, rate: 5 }] })).sales_order_id;
  out.warned = await client.confirmSalesOrder(second).then(() => 'no error', (error) => ({
    name: error.name, status: error.status, codes: error.details.map((detail) => detail.code) }));
  out.confirmed = await client.confirmSalesOrder(second, { acknowledge_warnings: true }, { ifMatch: 1 });
  out.closed = await client.closeSalesOrder(second);
  out.conflict = await client.cancelSalesOrder(second, { reason: 'late' }).then(() => 'no error', (error) => ({
    name: error.name, status: error.status, currentStatus: error.currentStatus }));
  const third = (await client.createSalesOrder({ customer_id: ids.customerId, sales_order_date: '2026-11-15',
    location_id: ids.locationId, details: [{ product_id: ids.productId, quantity: 1, rate: 5 }] })).sales_order_id;
  out.cancelled = await client.cancelSalesOrder(third, { reason: 'wrong customer' });
  out.amended = await client.amendSalesOrder(third);
  for (const [name, call] of [
    ['unprocessable', () => client.createSalesOrder({ customer_id: 999999, sales_order_date: '2026-11-15', location_id: ids.locationId,
      details: [{ product_id: ids.productId, quantity: 1, rate: 1 }] })],
    ['notFound', () => client.getSalesOrder(id)],
  ]) {
    try {
      await call();
      out[name] = 'no error';
    } catch (error) {
      out[name] = { isApiError: error instanceof SalesOrderApiError, name: error.name, status: error.status, code: error.code,
        message: error.message, details: error.details, hasRequestId: typeof error.requestId === 'string' };
    }
  }
  console.log(JSON.stringify(out));
};
main().catch((error) => { console.error(error); process.exit(1); });
`;

/** A TypeScript consumer: must compile against the packed types, including the typed error. */
const typedConsumer = `import {
  createSalesOrderClient,
  SalesOrderApiError,
  SalesOrderPreconditionFailedError,
  type SalesOrder,
  type ErrorDetail,
} from '@sales-order/client';

const client = createSalesOrderClient({ baseUrl: 'http://127.0.0.1:3000/api', auth: { type: 'apiKey', key: 'sok_x' } });

export const total = async (id: number): Promise<number> => {
  const order: SalesOrder = await client.getSalesOrder(id);
  return order.grand_total;
};

export const rename = (id: number, version: number) => client.updateSalesOrder(id, { remarks: 'renamed' }, { ifMatch: version });

export const currentVersionOf = (error: unknown): number | undefined =>
  error instanceof SalesOrderPreconditionFailedError ? error.currentVersion : undefined;

export const problems = (error: unknown): ErrorDetail[] => {
  if (error instanceof SalesOrderApiError && error.status === 422) return error.details;
  return [];
};

// Optional members given as possibly undefined values, as under exactOptionalPropertyTypes they come.
export const resume = async (after: string | undefined, limit?: number) => {
  const feed = client.events({ after, limit, types: undefined });
  // Every kind of event: an order's, (for a caller holding api_keys.manage) an API key's, an import's or a delivery's, by type.
  for await (const event of feed)
    void ('sales_order_id' in event
      ? event.sales_order_id
      : 'api_key_id' in event
        ? event.api_key_id
        : 'import_id' in event
          ? event.import_id
          : event.delivery_id);
  const page = await client.listEvents({ after, limit });
  const cursor: string | undefined = feed.cursor;
  return [cursor, page.next_cursor];
};
// The feed asked for some types: its items are those events, with the fields of their kind.
export const confirmedOrders = async (after: string | undefined) => {
  const seen: string[] = [];
  for await (const e of client.events({ after, types: ['sales_order.confirmed'] })) {
    const type: 'sales_order.confirmed' = e.type;
    seen.push(\`\${type} \${e.sales_order_id} v\${e.version}: \${e.data.sales_order_no} \${e.data.grand_total}\`);
    // @ts-expect-error an order's event has no api_key_id
    seen.push(String(e.api_key_id));
    // @ts-expect-error only confirmations were asked for
    const created: 'sales_order.created' = e.type;
    void created;
  }
  const ends = await client.listEvents({ types: ['import.completed', 'import.failed'] });
  for (const e of ends.items) seen.push(\`\${e.type} \${e.import_id} \${e.data.orders_created}\`);
  // @ts-expect-error an import's event is not an order's
  void ends.items[0]?.sales_order_id;
  const mixed = await client.listEvents({ types: ['sales_order.cancelled', 'api_key.revoked'] });
  for (const e of mixed.items) seen.push(String('sales_order_id' in e ? e.sales_order_id : e.api_key_id));
  return seen;
};
// @ts-expect-error not an event type
void client.events({ types: ['sales_order.exploded'] });
export const confirm = (id: number, version: number | undefined, key: string | undefined) =>
  client.confirmSalesOrder(id, {}, { ifMatch: version, idempotencyKey: key });
export const list = (cursor: string | undefined) => client.listSalesOrders({ cursor, limit: undefined });
export const options = (q: string | undefined) => client.getDropdownOptions('products', undefined, { q, limit: undefined });
export const retrying = createSalesOrderClient({ baseUrl: '/api', retry: { attempts: undefined }, headers: undefined });

// @ts-expect-error quantity must be a number
void client.calculateTotals({ details: [{ quantity: '1', rate: 1 }] });
// @ts-expect-error ifMatch takes a version number or an entity tag
void client.deleteSalesOrder(1, { ifMatch: true });
// @ts-expect-error cancel needs a reason
void client.cancelSalesOrder(1, {});
// @ts-expect-error unknown dropdown type
void client.getDropdownOptions('vendors');
`;

describe('the packed SDK in a fresh project', () => {
  let server: TestServer;
  let fixtures: Fixtures;
  let project: string;

  beforeAll(async () => {
    server = await startTestServer();
    fixtures = await createFixtures(server.database.prisma);
    project = await mkdtemp(path.join(tmpdir(), 'sdk-consumer-'));
    await installPackedSdk(project, { name: 'sdk-consumer' });
  }, 240_000);

  afterAll(async () => {
    await server?.close();
    if (project) await rm(project, { recursive: true, force: true });
  });

  const ids = () => ({
    customerId: fixtures.customers.customer.id,
    locationId: fixtures.locations.dhaka.id,
    yearId: fixtures.years.currentYear.id,
    productId: fixtures.products.product.id,
    packsizeId: fixtures.packsizes.packsize.id,
  });

  const runConsumer = async (file: string, auth: unknown) => {
    const { stdout } = await run('node', [file], {
      cwd: project,
      env: { ...process.env, SDK_TEST: JSON.stringify({ baseUrl: server.api, auth, ids: ids() }) },
    });
    return JSON.parse(stdout);
  };

  // The consumer prints free-form JSON; each assertion below states the shape it expects.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const expectFullRun = (out: Record<string, any>) => {
    expect(out.created).toEqual({
      sales_order_id: expect.any(Number),
      order_number: expect.stringMatching(/^DHK-2026-\d{5}$/),
      total_amount: 250,
    });
    expect(out.read).toMatchObject({
      sales_order_id: out.created.sales_order_id,
      grand_total: 250,
      subtotal: 100,
      customer_name: 'Rahman Traders',
    });
    expect(out.read.details).toEqual([expect.objectContaining({ quantity: 3, rate: 33.333, amount: 100 })]);
    expect(out.updated).toEqual({ sales_order_id: out.created.sales_order_id, updated: true, version: 2 });
    expect(out.readAfterUpdate).toMatchObject({
      remarks: 'via the SDK',
      other_charges: [],
      grand_total: 100,
      version: 2,
    });
    expect(out.totals).toEqual({ subtotal: 0.3, other_charges_total: 0, grand_total: 0.3 });
    expect(out.licence).toEqual({
      validation_message: expect.stringContaining('requires a licence'),
      has_warnings: true,
      warnings: [expect.objectContaining({ product_id: fixtures.products.product.id, code: 'no_valid_licence' })],
    });
    expect(out.maxNumber).toMatchObject({
      year_id: fixtures.years.currentYear.id,
      location_id: fixtures.locations.dhaka.id,
    });
    expect(out.maxNumber.max_sales_order_number).toMatch(/^DHK-2026-\d{5}$/);
    expect(out.dropdown.html).toContain(`<option value="${fixtures.locations.dhaka.id}" selected>Dhaka</option>`);
    expect(out.deleted).toEqual({ sales_order_id: out.created.sales_order_id, deleted: true });
    expect(out.keyedTwice[1]).toEqual(out.keyedTwice[0]);
    expect(out.stale).toEqual({
      isApiError: true,
      isPreconditionFailed: true,
      name: 'SalesOrderPreconditionFailedError',
      status: 412,
      currentVersion: 2,
    });
    expect(out.unreachable).toEqual({ isNetworkError: true, name: 'SalesOrderNetworkError' });
    expect(out.warned).toEqual({ name: 'SalesOrderUnprocessableError', status: 422, codes: ['no_valid_licence'] });
    expect(out.confirmed).toMatchObject({ status: 'confirmed', version: 2 });
    expect(out.closed).toMatchObject({ status: 'closed', version: 3 });
    expect(out.conflict).toEqual({ name: 'SalesOrderConflictError', status: 409, currentStatus: 'closed' });
    expect(out.cancelled).toMatchObject({ status: 'cancelled', cancellation_reason: 'wrong customer' });
    expect(out.amended).toMatchObject({ status: 'draft', amended_from_id: out.cancelled.sales_order_id, version: 1 });
    expect(out.unprocessable).toEqual({
      isApiError: true,
      name: 'SalesOrderUnprocessableError',
      status: 422,
      code: 422,
      message: 'Validation failed',
      details: [{ path: 'customer_id', code: 'unknown_customer', message: 'customer 999999 does not exist' }],
      hasRequestId: true,
    });
    expect(out.notFound).toMatchObject({ isApiError: true, status: 404, code: 404, details: [] });
  };

  it('imports from ES modules and drives every route with a bearer token', async () => {
    await writeFile(
      path.join(project, 'consumer.mjs'),
      consumerScript(
        "import { createSalesOrderClient, SalesOrderApiError, SalesOrderNetworkError, SalesOrderPreconditionFailedError } from '@sales-order/client';",
      ),
    );
    const token = await signJwt({ payload: { permissions: ['*'] }, subject: 'sdk-esm' });
    expectFullRun(await runConsumer('consumer.mjs', { type: 'bearer', token }));
  });

  it('requires from CommonJS and drives every route with an API key', async () => {
    await writeFile(
      path.join(project, 'consumer.cjs'),
      consumerScript(
        "const { createSalesOrderClient, SalesOrderApiError, SalesOrderNetworkError, SalesOrderPreconditionFailedError } = require('@sales-order/client');",
      ),
    );
    const { key } = await createApiKey(server.database.prisma, ['*']);
    expectFullRun(await runConsumer('consumer.cjs', { type: 'apiKey', key }));
  });

  it('ships bundles that import only zod, @ts-rest/core and standardwebhooks: nothing Node-only, fit for browsers', async () => {
    const installed = path.join(project, 'node_modules', '@sales-order', 'client', 'dist');
    const esm = await readFile(path.join(installed, 'index.js'), 'utf8');
    const cjs = await readFile(path.join(installed, 'index.cjs'), 'utf8');
    // A module specifier has no spaces: text such as "An import's state" in the bundled contract is not one.
    const esmImports = new Set([...esm.matchAll(/\b(?:from|import)\s*['"]([^'"\s]+)['"]/g)].map((match) => match[1]));
    const cjsRequires = new Set([...cjs.matchAll(/require\(['"]([^'"]+)['"]\)/g)].map((match) => match[1]));
    expect([...esmImports].sort()).toEqual(['@ts-rest/core', 'standardwebhooks', 'zod']);
    expect([...cjsRequires].sort()).toEqual(['@ts-rest/core', 'standardwebhooks', 'zod']);
    expect(esm).not.toMatch(/\bprocess\.|\bBuffer\b|__dirname/);
  });

  it('keeps its type declarations small: plain types, no zod schema for a consumer to check', async () => {
    const installed = path.join(project, 'node_modules', '@sales-order', 'client', 'dist');
    for (const file of ['index.d.ts', 'index.d.cts']) {
      const declarations = await readFile(path.join(installed, file), 'utf8');
      // 399 KB when the contract's zod schemas came with its types, which a consumer's tsc then
      // checked in full (10 s of a one-file app's 16 s); docs/sdk.md states the size. Plain types
      // grow with the API (105 KB with deliveries and change requests): the bound catches schemas
      // coming back, the line below names them.
      expect(Buffer.byteLength(declarations), file).toBeLessThan(150_000);
      expect(declarations.match(/\bZod[A-Z]\w*|from 'zod'/g) ?? [], file).toEqual([]);
    }
  });

  it('declares no dependency on a workspace package: the contract is bundled, never published', async () => {
    const manifest = JSON.parse(
      await readFile(path.join(project, 'node_modules', '@sales-order', 'client', 'package.json'), 'utf8'),
    ) as Record<string, unknown>;
    const declared = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'].flatMap((field) =>
      Object.keys((manifest[field] as Record<string, string> | undefined) ?? {}).map((name) => `${field}: ${name}`),
    );
    expect(declared.filter((entry) => entry.includes('@sales-order/'))).toEqual([]);
    expect(Object.keys(manifest.dependencies as Record<string, string>).sort()).toEqual([
      '@ts-rest/core',
      'standardwebhooks',
      'zod',
    ]);
  });

  it('type-checks a TypeScript consumer against the packed declarations', async () => {
    await writeFile(path.join(project, 'consumer.ts'), typedConsumer);
    await writeFile(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          ...CONSUMER_COMPILER_OPTIONS,
          types: [],
          noEmit: true,
        },
        files: ['consumer.ts'],
      }),
    );
    const result = await run(tsc, ['-p', 'tsconfig.json'], { cwd: project }).then(
      () => 'ok',
      (error: Error & { stdout?: string }) => error.stdout ?? error.message,
    );
    expect(result).toBe('ok');
  });
});
