import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

import AjvDraft04 from 'ajv-draft-04';
import openapiTS, { astToString } from 'openapi-typescript';
import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { useServerWithFixtures } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

const conformanceDir = path.join(import.meta.dirname, 'conformance');
const serverRoot = path.resolve(import.meta.dirname, '..');

type Json = unknown;

/**
 * For validation only: every object schema of the document refuses properties it does not
 * name, so a response carrying an undocumented field fails instead of slipping through.
 */
const closeObjects = (node: Json): Json => {
  if (Array.isArray(node)) return node.map(closeObjects);
  if (node === null || typeof node !== 'object') return node;
  const result = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, closeObjects(value)]));
  if ('properties' in result && !('additionalProperties' in result)) result.additionalProperties = false;
  return result;
};

// A CommonJS module with `exports.default`: NodeNext types see the module, vitest gives the class.
const Ajv = ((AjvDraft04 as unknown as { default?: typeof AjvDraft04 }).default ??
  AjvDraft04) as unknown as typeof AjvDraft04.default;

/**
 * A validator of the document's schemas that knows OpenAPI's `int32` and the document's `uuid`
 * (Ajv checks them instead of printing "unknown format ... ignored" for each use).
 */
const documentValidator = (document: Record<string, Json>) => {
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addFormat('int32', { type: 'number', validate: (value) => Number.isInteger(value) && Math.abs(value) < 2 ** 31 });
  ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
  ajv.addSchema(closeObjects(document) as object, 'openapi.json');
  return ajv;
};

interface Exchange {
  label: string;
  path: string;
  method: string;
  status: number;
  body: unknown;
  /** Set when the answer is not JSON (import results). */
  mediaType?: string;
}

/** The shape of ./conformance/openapi-fetch-calls.ts, which is type-checked on its own. */
interface ConformanceCalls {
  callEveryRoute: (baseUrl: string, token: string, ids: Record<string, number>) => Promise<Exchange[]>;
}

const pointerSegment = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

describe('conformance with a client generated from the live OpenAPI document', () => {
  // Webhook endpoints on a loopback address need both (the calls register a closed local port).
  const suite = useServerWithFixtures({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });

  it('openapi-typescript types + openapi-fetch calls reach every route, and every body fits the document', async () => {
    const document = (await request(suite.server.api).get('/openapi.json').expect(200)).body as Record<string, Json>;

    // 1. Types generated from the live document, then the calls type-checked against them.
    await mkdir(path.join(conformanceDir, 'generated'), { recursive: true });
    await writeFile(
      path.join(conformanceDir, 'generated', 'schema.d.ts'),
      astToString(await openapiTS(document as never)),
    );
    const tsc = path.join(serverRoot, 'node_modules', '.bin', 'tsc');
    await promisify(execFile)(tsc, ['-p', path.join(conformanceDir, 'tsconfig.json')]).catch(
      (error: Error & { stdout?: string }) => {
        throw new Error(
          `the openapi-fetch calls do not type-check against the generated types:\n${error.stdout ?? error.message}`,
        );
      },
    );

    // 2. The calls, made over HTTP by openapi-fetch. (A computed specifier: the server's own
    //    typecheck must not follow it into types that exist only once generated above.)
    const callsModule = './conformance/openapi-fetch-calls.js';
    const { callEveryRoute } = (await import(callsModule)) as ConformanceCalls;
    const token = await signJwt({ payload: { permissions: ['*'] }, subject: 'conformance' });
    const exchanges = await callEveryRoute(suite.server.api, token, {
      customerId: suite.fixtures.customers.customer.id,
      locationId: suite.fixtures.locations.dhaka.id,
      yearId: suite.fixtures.years.currentYear.id,
      productId: suite.fixtures.products.product.id,
      packsizeId: suite.fixtures.packsizes.packsize.id,
    });
    expect(exchanges.map(({ label, status }) => `${label} ${status}`)).toEqual([
      'create 201',
      'read 200',
      'update 200',
      'max-number 200',
      'calculate-totals 200',
      'validate-licence 200',
      'dropdown field-officers 200',
      'dropdown products 200',
      'dropdown locations 200',
      'dropdown customers 200',
      'dropdown ports 200',
      'list 200',
      'history 200',
      'create second 201',
      'confirm 200',
      'open change 201',
      'open a second change: 409 409',
      'list changes 200',
      'apply change 200',
      'discard an applied change: 409 409',
      'close 200',
      'cancel closed: 409 409',
      'delete closed: 409 409',
      'create third 201',
      'confirm with warnings: 422 422',
      'cancel 200',
      'amend 201',
      'amend again: 409 409',
      'delete 200',
      'read deleted: 404 404',
      'update deleted: 404 404',
      'delete deleted: 404 404',
      'list with a tampered cursor: 400 400',
      'history of an unknown order: 404 404',
      'create unknown customer: 422 422',
      'bulk create 201',
      'bulk create, failed rows 200',
      'bulk create unknown customer: 422 422',
      'create missing fields: 400 400',
      'max-number unknown year: 422 422',
      'calculate-totals out of range: 422 422',
      'calculate-totals wrong type: 400 400',
      'validate-licence unknown product: 422 422',
      'dropdown unknown type: 400 400',
      'events 200',
      'events with a tampered cursor: 400 400',
      'create webhook endpoint 201',
      'list webhook endpoints 200',
      'read webhook endpoint 200',
      'rotate webhook secret 200',
      'ping webhook endpoint 200',
      'replay 202',
      'deliveries 200',
      'disable webhook endpoint 200',
      'replay while disabled: 409 409',
      'create webhook endpoint with a password in the URL: 400 400',
      'delete webhook endpoint 200',
      'read deleted webhook endpoint: 404 404',
      'start import 202',
      'list imports 200',
      'read import 200',
      'import results 200',
      'cancel an ended import: 409 409',
      'read an unknown import: 404 404',
      'create API key 201',
      'list API keys 200',
      'read API key 200',
      'rename API key 200',
      'rotate API key 201',
      'rotate API key again: 409 409',
      'revoke API key 200',
      'API key history 200',
      'read unknown API key: 404 404',
      'sales report 200',
      'sales report as CSV 200',
      'sales report of quantities without product: 400 400',
      'create confirmed 201',
      'deliver 201',
      'over-deliver: 422 422',
      'deliveries of the order 200',
      'list deliveries 200',
      'read delivery 200',
      'return 201',
      'cancel a delivery with returns: 409 409',
      'read unknown delivery: 404 404',
      'read without credentials: 401 401',
      'create without credentials: 401 401',
    ]);
    const operations = new Set(exchanges.map(({ path: route, method }) => `${method} ${route}`));
    const documented = Object.entries(document.paths as Record<string, Record<string, Json>>).flatMap(([route, item]) =>
      Object.keys(item).map((method) => `${method} ${route}`),
    );
    expect([...operations].sort()).toEqual(documented.sort());

    // 3. Every body, success or error, validates against the schema the document gives for
    //    that route and status.
    const ajv = documentValidator(document);
    for (const exchange of exchanges) {
      const pointer = [
        'paths',
        exchange.path,
        exchange.method,
        'responses',
        String(exchange.status),
        'content',
        exchange.mediaType ?? 'application/json',
        'schema',
      ]
        .map(pointerSegment)
        .join('/');
      const validate = ajv.getSchema(`openapi.json#/${pointer}`);
      expect(
        validate,
        `${exchange.label}: status ${exchange.status} is not documented for ${exchange.method} ${exchange.path}`,
      ).toBeDefined();
      const valid = validate!(exchange.body);
      expect(valid, `${exchange.label}: ${JSON.stringify(validate!.errors)} in ${JSON.stringify(exchange.body)}`).toBe(
        true,
      );
    }
  });

  it('catches a body that does not fit: the validator is not a rubber stamp', async () => {
    const document = (await request(suite.server.api).get('/openapi.json').expect(200)).body as Record<string, Json>;
    const ajv = documentValidator(document);
    const validate = ajv.getSchema('openapi.json#/components/schemas/SalesOrder')!;
    const order = (
      await suite.server.http.post('/sales-orders').send({
        customer_id: suite.fixtures.customers.customer.id,
        sales_order_date: '2026-11-15',
        location_id: suite.fixtures.locations.dhaka.id,
        details: [{ product_id: suite.fixtures.products.product.id, quantity: 1, rate: 1 }],
      })
    ).body.data.sales_order_id as number;
    const read = (await suite.server.http.get(`/sales-orders/${order}`).expect(200)).body.data;
    expect(validate(read)).toBe(true);
    expect(validate({ ...read, grand_total: '1.00' })).toBe(false);
    expect(validate({ ...read, undocumented: true })).toBe(false);
    const { remarks: _remarks, ...withoutRemarks } = read;
    expect(validate(withoutRemarks)).toBe(false);
  });
});
