import { generateSchema } from '@anatine/zod-openapi';
import type { AppRoute } from '@ts-rest/core';
import { generateOpenApi } from '@ts-rest/open-api';
import {
  OpenApiBuilder,
  type OpenAPIObject,
  type OperationObject,
  type SchemaObject,
  type SecurityRequirementObject,
} from 'openapi3-ts/oas30';
import type { ZodTypeAny } from 'zod';
import { DropdownOptionsSchema } from './dropdown.js';
import { ErrorDetailSchema, ErrorEnvelopeSchema } from './envelope.js';
import { LicenceValidationSchema, LicenceWarningSchema, ValidateLicenceBodySchema } from './licence.js';
import { OPERATION_EXAMPLES } from './openapi-examples.js';
import { FieldChangeSchema, HistoryChargeSchema, HistoryEntrySchema, HistoryLineSchema, HistoryTotalsSchema, SalesOrderHistorySchema } from './order-history.js';
import { SalesOrderListItemSchema, SalesOrderPageSchema } from './order-list.js';
import {
  CreateSalesOrderBodySchema,
  CreatedSalesOrderSchema,
  DeletedSalesOrderSchema,
  MaxNumberSchema,
  OtherChargeInputSchema,
  OtherChargeSchema,
  SalesOrderDetailInputSchema,
  SalesOrderDetailSchema,
  SalesOrderSchema,
  UpdateSalesOrderBodySchema,
  UpdatedSalesOrderSchema,
} from './sales-order.js';
import { salesOrdersContract } from './sales-orders.contract.js';
import { CalculateTotalsBodySchema, TotalsSchema } from './totals.js';

/**
 * The OpenAPI 3.0 document, generated from the contract (no hand-written paths): ts-rest
 * renders every route, then named schemas become components and the security schemes,
 * permissions and examples are added.
 */

export interface OpenApiOptions {
  /** The server URL the document advertises (the service's BASE_PATH, or a full URL). */
  serverUrl?: string;
  /** Name of the host session cookie (SESSION_COOKIE_NAME). */
  sessionCookieName?: string;
}

export const API_VERSION = '1.0.0';

/** Schemas shown as named components; request bodies use input shapes, the rest output shapes. */
const REQUEST_COMPONENTS: Record<string, ZodTypeAny> = {
  CreateSalesOrderBody: CreateSalesOrderBodySchema,
  UpdateSalesOrderBody: UpdateSalesOrderBodySchema,
  SalesOrderDetailInput: SalesOrderDetailInputSchema,
  OtherChargeInput: OtherChargeInputSchema,
  CalculateTotalsBody: CalculateTotalsBodySchema,
  ValidateLicenceBody: ValidateLicenceBodySchema,
};
const RESPONSE_COMPONENTS: Record<string, ZodTypeAny> = {
  SalesOrder: SalesOrderSchema,
  SalesOrderDetail: SalesOrderDetailSchema,
  OtherCharge: OtherChargeSchema,
  CreatedSalesOrder: CreatedSalesOrderSchema,
  UpdatedSalesOrder: UpdatedSalesOrderSchema,
  DeletedSalesOrder: DeletedSalesOrderSchema,
  MaxNumber: MaxNumberSchema,
  Totals: TotalsSchema,
  LicenceValidation: LicenceValidationSchema,
  LicenceWarning: LicenceWarningSchema,
  DropdownOptions: DropdownOptionsSchema,
  ErrorDetail: ErrorDetailSchema,
  SalesOrderPage: SalesOrderPageSchema,
  SalesOrderListItem: SalesOrderListItemSchema,
  SalesOrderHistory: SalesOrderHistorySchema,
  HistoryEntry: HistoryEntrySchema,
  HistoryLine: HistoryLineSchema,
  HistoryCharge: HistoryChargeSchema,
  HistoryTotals: HistoryTotalsSchema,
  FieldChange: FieldChangeSchema,
};

const ERROR_ENVELOPE = 'ErrorEnvelope';

type Json = unknown;

const sameJson = (a: Json, b: Json) => JSON.stringify(a) === JSON.stringify(b);

/** Replaces every subtree equal to `target` with a `$ref` to the named component. */
const replaceWithRef = (node: Json, target: Json, ref: string): Json => {
  if (sameJson(node, target)) return { $ref: ref };
  if (Array.isArray(node)) return node.map((item) => replaceWithRef(item, target, ref));
  if (node !== null && typeof node === 'object') {
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, replaceWithRef(value, target, ref)]));
  }
  return node;
};

/**
 * The zod converter writes JSON Schema 2020 exclusive bounds (`exclusiveMinimum: 0`); OpenAPI
 * 3.0 wants `minimum: 0, exclusiveMinimum: true`.
 */
const toOpenApi30Bounds = (node: Json): Json => {
  if (Array.isArray(node)) return node.map(toOpenApi30Bounds);
  if (node === null || typeof node !== 'object') return node;
  const entries = Object.entries(node).map(([key, value]) => [key, toOpenApi30Bounds(value)] as const);
  const result: Record<string, Json> = Object.fromEntries(entries);
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof result[exclusive] === 'number') {
      result[bound] = result[exclusive];
      result[exclusive] = true;
    }
  }
  return result;
};

/**
 * A nullable union comes out as `{ oneOf, nullable }` without a `type`, which OpenAPI 3.0 does
 * not allow; `anyOf` over nullable members says the same (oneOf would match null twice).
 */
const toNullableMembers = (node: Json): Json => {
  if (Array.isArray(node)) return node.map(toNullableMembers);
  if (node === null || typeof node !== 'object') return node;
  const result: Record<string, Json> = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, toNullableMembers(value)]));
  if (result.nullable === true && result.type === undefined && Array.isArray(result.oneOf)) {
    const { oneOf, nullable: _nullable, ...rest } = result;
    return { ...rest, anyOf: (oneOf as Record<string, Json>[]).map((member) => ({ ...member, nullable: true })) };
  }
  return result;
};

/** Lifts the named schemas out of `paths` into `components.schemas`, smallest first so they nest. */
const extractComponents = (paths: Json): { paths: Json; schemas: Record<string, SchemaObject> } => {
  const named = [
    ...Object.entries(REQUEST_COMPONENTS).map(([name, schema]) => [name, toOpenApi30Bounds(generateSchema(schema, false))] as const),
    ...Object.entries(RESPONSE_COMPONENTS).map(([name, schema]) => [name, toNullableMembers(toOpenApi30Bounds(generateSchema(schema, true)))] as const),
    [ERROR_ENVELOPE, toOpenApi30Bounds(generateSchema(ErrorEnvelopeSchema, true))] as const,
  ].sort(([, a], [, b]) => JSON.stringify(a).length - JSON.stringify(b).length);

  let result = paths;
  const schemas: Record<string, Json> = Object.fromEntries(named);
  for (const [name] of named) {
    // The component as it stands now, its smaller components already replaced by refs,
    // exactly as they were replaced in the paths.
    const target = schemas[name];
    const ref = `#/components/schemas/${name}`;
    result = replaceWithRef(result, target, ref);
    for (const other of Object.keys(schemas)) {
      if (other !== name) schemas[other] = replaceWithRef(schemas[other], target, ref);
    }
  }
  return { paths: result, schemas: schemas as Record<string, SchemaObject> };
};

const SUCCESS_DESCRIPTIONS: Record<string, string> = { 200: 'OK', 201: 'Created' };

const SECURITY_REQUIREMENTS: SecurityRequirementObject[] = [{ bearerAuth: [] }, { apiKeyAuth: [] }, { sessionCookie: [] }];

/** Per operation: its permission, examples, and one error envelope component for every error. */
const describeOperation = (operation: OperationObject, route: AppRoute): OperationObject => {
  const permission = (route.metadata as { permission?: string } | undefined)?.permission;
  const responses = Object.fromEntries(
    Object.entries(operation.responses ?? {}).map(([status, response]) => {
      if (Number(status) < 400) {
        return [status, { ...response, description: SUCCESS_DESCRIPTIONS[status] ?? response.description }];
      }
      return [
        status,
        { description: response.description, content: { 'application/json': { schema: { $ref: `#/components/schemas/${ERROR_ENVELOPE}` } } } },
      ];
    }),
  );
  const operationId = operation.operationId ?? '';
  const examples = OPERATION_EXAMPLES[operationId as keyof typeof OPERATION_EXAMPLES];
  if (examples) {
    for (const [status, example] of Object.entries(examples.responses)) {
      const media = responses[status]?.content?.['application/json'];
      if (media) media.example = example;
    }
    const body = operation.requestBody as { content?: Record<string, { example?: unknown }> } | undefined;
    const bodyMedia = body?.content?.['application/json'];
    if (bodyMedia && 'request' in examples) bodyMedia.example = examples.request;
  }
  return {
    ...operation,
    tags: ['Sales orders'],
    description: [operation.description, permission ? `Requires the \`${permission}\` permission.` : undefined]
      .filter(Boolean)
      .join('\n\n'),
    security: SECURITY_REQUIREMENTS,
    responses,
    ...(permission ? { 'x-permission': permission } : {}),
  };
};

export const createOpenApiDocument = ({
  serverUrl = '/api',
  sessionCookieName = 'erp_session',
}: OpenApiOptions = {}): OpenAPIObject => {
  const generated = generateOpenApi(
    salesOrdersContract,
    { info: { title: 'Sales order service', version: API_VERSION } },
    {
      setOperationId: true,
      // ts-rest types its mapper with openapi3-ts 2; the shapes used here are the same in 3.0.
      operationMapper: (operation, route) => describeOperation(operation as OperationObject, route) as never,
    },
  );
  const { paths, schemas } = extractComponents(toNullableMembers(toOpenApi30Bounds(generated.paths)));

  const builder = OpenApiBuilder.create()
    .addOpenApiVersion('3.0.3')
    .addInfo({
      title: 'Sales order service',
      version: API_VERSION,
      description:
        'Sales orders of an ERP system: create, read, update and soft-delete orders with detail lines and other charges, ' +
        'numbering per location and financial year, exact totals, licence checks and HTML option lists. Every response ' +
        'uses the envelope `{ success, data, message? }` or `{ success: false, error: { message, code, details[] } }`; ' +
        '`error.code` equals the HTTP status.',
    })
    .addServer({ url: serverUrl, description: 'This service' })
    .addTag({ name: 'Sales orders', description: 'Orders, their totals, licences and form options.' })
    .addSecurityScheme('bearerAuth', {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'A JWT with `sub` and `permissions` (array) or `scope` (space-separated).',
    })
    .addSecurityScheme('apiKeyAuth', {
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description: 'An API key sent as `Authorization: ApiKey <key>`.',
    })
    .addSecurityScheme('sessionCookie', {
      type: 'apiKey',
      in: 'cookie',
      name: sessionCookieName,
      description: 'The host ERP session. POST, PUT and DELETE must come from an allowed Origin.',
    });
  for (const [name, schema] of Object.entries(schemas)) builder.addSchema(name, schema);
  const document = builder.getSpec();
  document.paths = paths as OpenAPIObject['paths'];
  document.security = SECURITY_REQUIREMENTS;
  return document;
};
