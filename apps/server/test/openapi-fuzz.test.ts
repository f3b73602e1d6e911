import {
  DELIVERY_DATE_METRICS,
  encodeEventCursor,
  ORDER_TOTAL_METRICS,
  QUANTITY_METRICS,
  type ReportMetric,
} from '@sales-order/contract';
import { generate } from 'json-schema-faker';
import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { useServerWithFixtures } from './support/test-server.js';

/**
 * Requests generated from the served OpenAPI document, valid by it, must never be refused as
 * malformed (400): a refusal means the server enforces a rule the document does not state.
 * Data rules may still say no (404 unknown order, 422 unknown customer): the generator knows
 * nothing of the database.
 */

type Json = unknown;
type JsonObject = Record<string, Json>;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema: JsonObject;
}

interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: { 'application/json'?: { schema: JsonObject } } };
}

/** Requests per operation: eight operations, a few hundred requests in all. */
const REQUESTS_PER_OPERATION = 40;
const SEED = 20261122;

const isObject = (node: Json): node is JsonObject => node !== null && typeof node === 'object' && !Array.isArray(node);

/**
 * OpenAPI 3.0 schemas as the JSON Schema 2020-12 the generator reads: `nullable` becomes a
 * `null` type, boolean exclusive bounds become numeric ones, component refs point at `$defs`.
 */
const toJsonSchema = (node: Json): Json => {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!isObject(node)) return node;
  const result: JsonObject = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, toJsonSchema(value)]));
  if (typeof result.$ref === 'string') result.$ref = result.$ref.replace('#/components/schemas/', '#/$defs/');
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (result[exclusive] === true) {
      result[exclusive] = result[bound];
      delete result[bound];
    } else if (result[exclusive] === false) {
      delete result[exclusive];
    }
  }
  if (result.nullable === true) {
    delete result.nullable;
    if (Array.isArray(result.enum)) result.enum = [...result.enum, null];
    if (typeof result.type === 'string') result.type = [result.type, 'null'];
  }
  delete result.example;
  return result;
};

/** Decimals of a `multipleOf` such as 0.01 (2) or 1e-4 (4). */
const decimalsOf = (step: number) => {
  const [mantissa = '', exponent = '0'] = String(step).split('e');
  return Math.max(0, (mantissa.split('.')[1]?.length ?? 0) - Number(exponent));
};

/**
 * The generator draws a multiple of 0.01 as `k * 0.01` in binary floating point, which gives
 * 0.5700000000000001 for k = 57: not a multiple of 0.01 in the decimal sense the document
 * means (and the server checks). The value meant is `k / 100`; this hook of the generator
 * rounds to it and changes nothing else.
 */
const exactDecimals = (value: Json, schema: Json): Json =>
  typeof value === 'number' && isObject(schema) && typeof schema.multipleOf === 'number'
    ? Number(value.toFixed(decimalsOf(schema.multipleOf)))
    : value;

const generateFrom = (schema: JsonObject, $defs: JsonObject, seed: number) =>
  generate({ ...(toJsonSchema(schema) as JsonObject), $defs } as never, {
    seed,
    // Up to 20 lines a request rather than 500: the rules are per line, and the suite shares
    // two cores.
    maxItems: 20,
    // Deep enough for a bulk create's lines (body -> orders -> order -> details -> line); the
    // generator's default of 5 would write the deepest required objects as null.
    maxDepth: 8,
    outputTransform: exactDecimals,
  });

/**
 * A generated webhook URL names a host of the internet: registering it would make the server
 * look that name up (a DNS query leaving this machine). It becomes a loopback address, which
 * the server refuses without a lookup or a packet (422). A replay's feed cursor is opaque like
 * the list's: one the service issued.
 */
const withoutOutboundTargets = (body: Json): Json => {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const record = body as Record<string, Json>;
  return {
    ...record,
    ...(typeof record.url === 'string' ? { url: 'https://127.0.0.1:9/fuzz' } : {}),
    ...(typeof record.after === 'string' ? { after: encodeEventCursor({ position: 0 }) } : {}),
  };
};

/**
 * What a report's parameters must say together, which no JSON Schema of one parameter states
 * (the route's description does): group keys and metrics each at most once, quantities only with
 * product among the keys, an order's charges never by product, only the dated metrics by delivery
 * date, a sort among the request's own keys and metrics. A generated request is made to keep
 * them; each rule's own 400 is tested in sales-reports.test.ts.
 */
const reportRules = (query: Record<string, string>): Record<string, string> => {
  const groupBy = [...new Set((query.group_by ?? 'location').split(','))].slice(0, 3);
  let metrics = query.metrics === undefined ? undefined : [...new Set(query.metrics.split(','))];
  const byProduct = groupBy.includes('product');
  const allowed = (metric: string) =>
    (byProduct || !QUANTITY_METRICS.includes(metric as ReportMetric)) &&
    (!byProduct || !ORDER_TOTAL_METRICS.includes(metric as ReportMetric)) &&
    (query.date_basis !== 'delivery_date' || DELIVERY_DATE_METRICS.includes(metric as ReportMetric));
  metrics = metrics?.filter(allowed);
  const fixed: Record<string, string> = {
    group_by: groupBy.join(','),
    metrics: metrics?.length ? metrics.join(',') : 'order_count',
  };
  if (query.sort !== undefined) fixed.sort = `-${groupBy[0]}`;
  return fixed;
};

interface Sent {
  operation: string;
  method: string;
  path: string;
  query: Record<string, string>;
  body: Json;
  status: number;
  response: Json;
}

describe('requests generated from the served OpenAPI document', () => {
  const suite = useServerWithFixtures();

  it('are never refused as malformed (400): the document states every rule the server enforces', async () => {
    const document = (await request(suite.server.api).get('/openapi.json').expect(200)).body as {
      paths: Record<string, Record<string, Operation>>;
      components: { schemas: JsonObject };
    };
    const $defs = toJsonSchema(document.components.schemas) as JsonObject;

    const sent: Sent[] = [];
    let seed = SEED;
    for (const [template, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const parameters = operation.parameters ?? [];
        // A file body (an import) is no JSON to generate, and an empty file is rightly 400
        // import_not_readable: imports.test.ts and import-duplicates.test.ts send files.
        const bodySchema = operation.requestBody?.content['application/json']?.schema;
        if (operation.requestBody && !bodySchema) continue;
        if (parameters.length === 0 && !bodySchema) continue;
        for (let index = 0; index < REQUESTS_PER_OPERATION; index += 1) {
          seed += 1;
          let path = template;
          const query: Record<string, string> = {};
          for (const [position, parameter] of parameters.entries()) {
            // Optional parameters are left out every other time. A list cursor is opaque: only
            // one the server issued is valid (order-list.test.ts refuses the others).
            if (!parameter.required && (index + position) % 2 === 0) continue;
            if (parameter.name === 'cursor' || parameter.name === 'after') continue;
            const value = String(await generateFrom(parameter.schema, $defs, seed * 16 + position));
            if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, encodeURIComponent(value));
            else if (parameter.in === 'query') query[parameter.name] = value;
          }
          if (operation.operationId === 'getSalesReport') Object.assign(query, reportRules(query));
          const body = withoutOutboundTargets(bodySchema ? await generateFrom(bodySchema, $defs, seed) : undefined);
          let call = suite.server.http[method as 'get' | 'post' | 'put' | 'patch' | 'delete'](path).query(query);
          if (body !== undefined) call = call.send(body as object);
          const response = await call;
          sent.push({
            operation: operation.operationId,
            method,
            path,
            query,
            body,
            status: response.status,
            response: response.body,
          });
        }
      }
    }

    // Every operation with parameters or a body was exercised, each as often as asked.
    const perOperation = new Map<string, number>();
    for (const { operation } of sent) perOperation.set(operation, (perOperation.get(operation) ?? 0) + 1);
    expect(Object.fromEntries(perOperation)).toEqual({
      getMaxNumber: REQUESTS_PER_OPERATION,
      validateLicence: REQUESTS_PER_OPERATION,
      calculateTotals: REQUESTS_PER_OPERATION,
      getDropdownOptions: REQUESTS_PER_OPERATION,
      createSalesOrder: REQUESTS_PER_OPERATION,
      bulkCreateSalesOrders: REQUESTS_PER_OPERATION,
      getSalesOrder: REQUESTS_PER_OPERATION,
      updateSalesOrder: REQUESTS_PER_OPERATION,
      deleteSalesOrder: REQUESTS_PER_OPERATION,
      listSalesOrders: REQUESTS_PER_OPERATION,
      getSalesOrderHistory: REQUESTS_PER_OPERATION,
      confirmSalesOrder: REQUESTS_PER_OPERATION,
      cancelSalesOrder: REQUESTS_PER_OPERATION,
      closeSalesOrder: REQUESTS_PER_OPERATION,
      amendSalesOrder: REQUESTS_PER_OPERATION,
      openChange: REQUESTS_PER_OPERATION,
      listChanges: REQUESTS_PER_OPERATION,
      applyChange: REQUESTS_PER_OPERATION,
      discardChange: REQUESTS_PER_OPERATION,
      listEvents: REQUESTS_PER_OPERATION,
      createWebhookEndpoint: REQUESTS_PER_OPERATION,
      getWebhookEndpoint: REQUESTS_PER_OPERATION,
      updateWebhookEndpoint: REQUESTS_PER_OPERATION,
      deleteWebhookEndpoint: REQUESTS_PER_OPERATION,
      rotateWebhookSecret: REQUESTS_PER_OPERATION,
      listWebhookDeliveries: REQUESTS_PER_OPERATION,
      replayWebhookEvents: REQUESTS_PER_OPERATION,
      pingWebhookEndpoint: REQUESTS_PER_OPERATION,
      getImport: REQUESTS_PER_OPERATION,
      getImportResults: REQUESTS_PER_OPERATION,
      cancelImport: REQUESTS_PER_OPERATION,
      createApiKey: REQUESTS_PER_OPERATION,
      listApiKeys: REQUESTS_PER_OPERATION,
      getApiKey: REQUESTS_PER_OPERATION,
      updateApiKey: REQUESTS_PER_OPERATION,
      rotateApiKey: REQUESTS_PER_OPERATION,
      revokeApiKey: REQUESTS_PER_OPERATION,
      listApiKeyHistory: REQUESTS_PER_OPERATION,
      getSalesReport: REQUESTS_PER_OPERATION,
      recordDelivery: REQUESTS_PER_OPERATION,
      listOrderDeliveries: REQUESTS_PER_OPERATION,
      listDeliveries: REQUESTS_PER_OPERATION,
      getDelivery: REQUESTS_PER_OPERATION,
      cancelDelivery: REQUESTS_PER_OPERATION,
      recordReturn: REQUESTS_PER_OPERATION,
    });

    // Optional fields were exercised too, not only the required ones.
    const createFields = new Set(
      sent
        .filter(({ operation }) => operation === 'createSalesOrder')
        .flatMap(({ body }) => Object.keys(body as object)),
    );
    const documentedFields = Object.keys(
      (document.components.schemas.CreateSalesOrderBody as { properties: JsonObject }).properties,
    );
    expect([...createFields].sort()).toEqual(documentedFields.sort());

    const refused = sent.filter(({ status }) => status === 400);
    expect(
      refused.map(({ operation, path, query, body, response }) => ({
        operation,
        path,
        query,
        body,
        details: (response as { error?: { details?: Json } }).error?.details,
      })),
      `${refused.length} of ${sent.length} requests valid by the document were refused as malformed`,
    ).toEqual([]);
    // Nothing else went wrong either: only answers the document lists for data rules (409: an
    // order whose status does not allow the call, which generated calls meet all the time).
    expect(
      sent
        .filter(({ status }) => ![200, 201, 202, 404, 409, 422].includes(status))
        .map(({ operation, status }) => `${operation} ${status}`),
    ).toEqual([]);
    // The generator is no rubber stamp: some requests got through to the use case.
    expect(sent.some(({ status }) => status === 200)).toBe(true);
  }, 240_000);

  it('error answers stay within the lengths and counts the document states, however long the request', async () => {
    const document = (await request(suite.server.api).get('/openapi.json').expect(200)).body as {
      components: { schemas: JsonObject };
    };
    const envelope = document.components.schemas.ErrorEnvelope as {
      properties: { error: { properties: { message: { maxLength: number }; details: { maxItems: number } } } };
    };
    const { message, details } = envelope.properties.error.properties;
    expect([message.maxLength, details.maxItems]).toEqual([1000, 100]);

    // The 404 message quotes the path: 5,000 characters of it would be quoted whole.
    const unknown = await suite.server.http.get(`/no-such-route/${'x'.repeat(5000)}`).expect(404);
    expect(unknown.body.error.message).toHaveLength(message.maxLength);
    expect(unknown.body.error.message).toMatch(/^No route for GET \/.*x…$/);

    // 500 lines, each with three problems: 1,500 details would be listed.
    const lines = Array.from({ length: 500 }, () => ({ product_id: 0, quantity: -1, rate: 'x' }));
    const invalid = await suite.server.http.post('/sales-orders/calculate-totals').send({ details: lines }).expect(400);
    expect(invalid.body.error.details).toHaveLength(details.maxItems);
    expect(invalid.body.error.details[0]).toMatchObject({ path: 'details.0.quantity' });
  });
});
