import { generateSchema } from '@anatine/zod-openapi';
import type { AppRoute } from '@ts-rest/core';
import { generateOpenApi } from '@ts-rest/open-api';
import {
  type HeaderObject,
  OpenApiBuilder,
  type OpenAPIObject,
  type OperationObject,
  type ParameterObject,
  type ResponseObject,
  type SchemaObject,
  type SecurityRequirementObject,
} from 'openapi3-ts/oas30';
import type { ZodTypeAny } from 'zod';

import { apiContract } from './api.contract.js';
import {
  ApiKeyHistoryEntrySchema,
  ApiKeyHistorySchema,
  ApiKeyPageSchema,
  ApiKeySchema,
  CreateApiKeyBodySchema,
  CreatedApiKeySchema,
  RevokeApiKeyBodySchema,
  RotateApiKeyBodySchema,
  UpdateApiKeyBodySchema,
} from './api-keys.js';
import { DETAIL_CODES } from './detail-codes.js';
import { DropdownOptionsSchema } from './dropdown.js';
import { ErrorDetailSchema, ErrorEnvelopeSchema } from './envelope.js';
import {
  ApiKeyEventDataSchema,
  ApiKeyEventSchema,
  EventPageSchema,
  ImportEventSchema,
  SalesOrderEventSchema,
} from './events.js';
import { LicenceValidationSchema, LicenceWarningSchema, ValidateLicenceBodySchema } from './licence.js';
import { OPERATION_EXAMPLES } from './openapi-examples.js';
import { OPERATION_RESPONSE_HEADERS } from './openapi-headers.js';
import {
  FieldChangeSchema,
  HistoryChargeSchema,
  HistoryEntrySchema,
  HistoryLineSchema,
  HistoryTotalsSchema,
  SalesOrderHistorySchema,
} from './order-history.js';
import { CancelSalesOrderBodySchema, ConfirmSalesOrderBodySchema, SalesOrderStatusSchema } from './order-lifecycle.js';
import { SalesOrderListItemSchema, SalesOrderPageSchema } from './order-list.js';
import { type FieldPermission, type Permission, requiredPermissions, type RouteAccess } from './permissions.js';
import { SalesReportRowSchema, SalesReportSchema, SalesReportTotalsSchema } from './reports.js';
import {
  CreatedSalesOrderSchema,
  CreateSalesOrderBodySchema,
  DeletedSalesOrderSchema,
  MaxNumberSchema,
  OtherChargeInputSchema,
  OtherChargeSchema,
  SalesOrderDetailInputSchema,
  SalesOrderDetailSchema,
  SalesOrderSchema,
  UpdatedSalesOrderSchema,
  UpdateSalesOrderBodySchema,
} from './sales-order.js';
import {
  BULK_MAX_ORDERS_DEFAULT,
  BulkCreatedSalesOrdersSchema,
  BulkCreateSalesOrdersBodySchema,
  BulkOrderResultSchema,
  BulkOrderSchema,
} from './sales-order-bulk.js';
import { CalculateTotalsBodySchema, TotalsSchema } from './totals.js';
import {
  CreatedWebhookEndpointSchema,
  CreateWebhookEndpointBodySchema,
  DeliveryAttemptSchema,
  PingedWebhookEndpointSchema,
  ReplayedWebhookEventsSchema,
  ReplayWebhookEventsBodySchema,
  RotatedWebhookSecretSchema,
  UpdateWebhookEndpointBodySchema,
  WebhookDeliveryPageSchema,
  WebhookDeliverySchema,
  WebhookEndpointListSchema,
  WebhookEndpointSchema,
  WebhookPayloadSchema,
} from './webhook-endpoints.js';

/** A file body or text answer is at most the largest IMPORT_MAX_BYTES the service accepts (1 GiB). */
const TEXT_BODY_MAX_LENGTH = 1024 * 1024 * 1024;
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
  /** Largest request body the server reads (BODY_LIMIT), as body-parser writes it. */
  bodyLimit?: string;
  /** Most orders of one bulk create (BULK_MAX_ORDERS): the `maxItems` of its `orders`. */
  bulkMaxOrders?: number;
}

export const API_VERSION = '1.0.0';

/** Schemas shown as named components; request bodies use input shapes, the rest output shapes. */
const REQUEST_COMPONENTS: Record<string, ZodTypeAny> = {
  CreateSalesOrderBody: CreateSalesOrderBodySchema,
  BulkCreateSalesOrdersBody: BulkCreateSalesOrdersBodySchema,
  BulkOrder: BulkOrderSchema,
  UpdateSalesOrderBody: UpdateSalesOrderBodySchema,
  SalesOrderDetailInput: SalesOrderDetailInputSchema,
  OtherChargeInput: OtherChargeInputSchema,
  CalculateTotalsBody: CalculateTotalsBodySchema,
  ValidateLicenceBody: ValidateLicenceBodySchema,
  CreateWebhookEndpointBody: CreateWebhookEndpointBodySchema,
  UpdateWebhookEndpointBody: UpdateWebhookEndpointBodySchema,
  ReplayWebhookEventsBody: ReplayWebhookEventsBodySchema,
  ConfirmSalesOrderBody: ConfirmSalesOrderBodySchema,
  CancelSalesOrderBody: CancelSalesOrderBodySchema,
  CreateApiKeyBody: CreateApiKeyBodySchema,
  UpdateApiKeyBody: UpdateApiKeyBodySchema,
  RotateApiKeyBody: RotateApiKeyBodySchema,
  RevokeApiKeyBody: RevokeApiKeyBodySchema,
};
const RESPONSE_COMPONENTS: Record<string, ZodTypeAny> = {
  SalesOrder: SalesOrderSchema,
  SalesOrderDetail: SalesOrderDetailSchema,
  OtherCharge: OtherChargeSchema,
  CreatedSalesOrder: CreatedSalesOrderSchema,
  BulkCreatedSalesOrders: BulkCreatedSalesOrdersSchema,
  BulkOrderResult: BulkOrderResultSchema,
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
  SalesOrderEvent: SalesOrderEventSchema,
  ApiKeyEvent: ApiKeyEventSchema,
  ApiKeyEventData: ApiKeyEventDataSchema,
  ImportEvent: ImportEventSchema,
  EventPage: EventPageSchema,
  WebhookEndpoint: WebhookEndpointSchema,
  CreatedWebhookEndpoint: CreatedWebhookEndpointSchema,
  WebhookEndpointList: WebhookEndpointListSchema,
  RotatedWebhookSecret: RotatedWebhookSecretSchema,
  WebhookDelivery: WebhookDeliverySchema,
  WebhookDeliveryPage: WebhookDeliveryPageSchema,
  DeliveryAttempt: DeliveryAttemptSchema,
  ReplayedWebhookEvents: ReplayedWebhookEventsSchema,
  PingedWebhookEndpoint: PingedWebhookEndpointSchema,
  // Not an answer of any route: the body of every webhook delivery (OpenAPI 3.0 has no `webhooks`).
  WebhookPayload: WebhookPayloadSchema,
  SalesOrderStatus: SalesOrderStatusSchema,
  SalesReport: SalesReportSchema,
  SalesReportRow: SalesReportRowSchema,
  SalesReportTotals: SalesReportTotalsSchema,
  ApiKey: ApiKeySchema,
  CreatedApiKey: CreatedApiKeySchema,
  ApiKeyPage: ApiKeyPageSchema,
  ApiKeyHistory: ApiKeyHistorySchema,
  ApiKeyHistoryEntry: ApiKeyHistoryEntrySchema,
};

const ERROR_ENVELOPE = 'ErrorEnvelope';
const ERROR_DETAIL = 'ErrorDetail';

/**
 * `ErrorDetail.code` names every code the service answers (detail-codes.ts). Not an `enum`:
 * a new code in a later version must not break a client generated from this document, so the
 * list is an `x-extensible-enum` (and in the description, for readers of the rendered page).
 */
const listDetailCodes = (errorDetail: SchemaObject): SchemaObject => {
  const code = errorDetail.properties!.code as SchemaObject;
  return {
    ...errorDetail,
    properties: {
      ...errorDetail.properties,
      code: {
        ...code,
        description: `${code.description} One of: ${DETAIL_CODES.map((value) => `\`${value}\``).join(', ')}.`,
        'x-extensible-enum': [...DETAIL_CODES],
      },
    },
  };
};

type Json = unknown;

/** The keys of an object node in order, the cheap test before comparing whole subtrees. */
const keysOf = (node: Json): string | undefined =>
  node !== null && typeof node === 'object' && !Array.isArray(node) ? Object.keys(node).join(',') : undefined;

/** Replaces every subtree equal to `target` with a `$ref` to the named component. */
const replaceWithRef = (node: Json, target: Json, ref: string): Json => {
  const targetJson = JSON.stringify(target);
  const targetKeys = keysOf(target);
  const replace = (each: Json): Json => {
    // Only a node with the target's keys can be equal to it: the others are not serialised.
    if (keysOf(each) === targetKeys && JSON.stringify(each) === targetJson) return { $ref: ref };
    if (Array.isArray(each)) return each.map(replace);
    if (each !== null && typeof each === 'object') {
      return Object.fromEntries(Object.entries(each).map(([key, value]) => [key, replace(value)]));
    }
    return each;
  };
  return replace(node);
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

const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;

/**
 * Integers as the server reads them: an exclusive lower bound becomes the first allowed value
 * (`minimum: 1` rather than `minimum: 0, exclusiveMinimum: true`), and the format says whether
 * the bounds fit a 32-bit integer.
 */
const describeIntegers = (node: Json): Json => {
  if (Array.isArray(node)) return node.map(describeIntegers);
  if (node === null || typeof node !== 'object') return node;
  const result: Record<string, Json> = Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, describeIntegers(value)]),
  );
  if (result.type !== 'integer') return result;
  if (result.exclusiveMinimum === true && typeof result.minimum === 'number') {
    result.minimum = Math.floor(result.minimum) + 1;
    delete result.exclusiveMinimum;
  }
  if (result.exclusiveMaximum === true && typeof result.maximum === 'number') {
    result.maximum = Math.ceil(result.maximum) - 1;
    delete result.exclusiveMaximum;
  }
  const { minimum, maximum } = result;
  const fitsInt32 =
    typeof minimum === 'number' && typeof maximum === 'number' && minimum >= INT32_MIN && maximum <= INT32_MAX;
  result.format ??= fitsInt32 ? 'int32' : 'int64';
  return result;
};

/**
 * A nullable union comes out as `{ oneOf, nullable }` without a `type`, which OpenAPI 3.0 does
 * not allow; `anyOf` over nullable members says the same (oneOf would match null twice).
 */
const toNullableMembers = (node: Json): Json => {
  if (Array.isArray(node)) return node.map(toNullableMembers);
  if (node === null || typeof node !== 'object') return node;
  const result: Record<string, Json> = Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, toNullableMembers(value)]),
  );
  if (result.nullable === true && result.type === undefined && Array.isArray(result.oneOf)) {
    const { oneOf, nullable: _nullable, ...rest } = result;
    return { ...rest, anyOf: (oneOf as Record<string, Json>[]).map((member) => ({ ...member, nullable: true })) };
  }
  return result;
};

/**
 * A nullable enum must list null among its values (OpenAPI 3.0.3, "nullable"): otherwise a
 * validator reading the enum refuses the null the schema allows.
 */
const toNullableEnums = (node: Json): Json => {
  if (Array.isArray(node)) return node.map(toNullableEnums);
  if (node === null || typeof node !== 'object') return node;
  const result: Record<string, Json> = Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, toNullableEnums(value)]),
  );
  if (result.nullable === true && Array.isArray(result.enum) && !result.enum.includes(null)) {
    result.enum = [...(result.enum as Json[]), null];
  }
  return result;
};

/**
 * A discriminated union comes out as `{ discriminator: { propertyName }, oneOf }` without a
 * `mapping`, which OpenAPI reads as "the value is the member schema's name": a validator then
 * wants `type: "SalesOrderEvent"`. Each value of the members' discriminating enum is mapped to
 * its member here, once the members are components; a union with an inline member keeps only
 * its `oneOf` (whose members' enums are disjoint).
 */
const withDiscriminatorMappings = <T extends Json>(node: T, schemas: Record<string, SchemaObject>): T => {
  const visit = (value: Json): Json => {
    if (Array.isArray(value)) return value.map(visit);
    if (value === null || typeof value !== 'object') return value;
    const result: Record<string, Json> = Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, visit(item)]),
    );
    const discriminator = result.discriminator as { propertyName?: string; mapping?: Json } | undefined;
    if (!discriminator?.propertyName || discriminator.mapping || !Array.isArray(result.oneOf)) return result;
    const refs = (result.oneOf as Record<string, Json>[]).map((member) => member.$ref);
    if (!refs.every((ref): ref is string => typeof ref === 'string')) {
      const { discriminator: _discriminator, ...rest } = result;
      return rest;
    }
    const mapping: Record<string, string> = {};
    for (const ref of refs) {
      const member = schemas[ref.replace('#/components/schemas/', '')] as Record<string, Json> | undefined;
      const property = (member?.properties as Record<string, Record<string, Json>> | undefined)?.[
        discriminator.propertyName
      ];
      for (const option of (property?.enum as Json[] | undefined) ?? []) mapping[String(option)] = ref;
    }
    return { ...result, discriminator: { ...discriminator, mapping } };
  };
  return visit(node) as T;
};

/** Every rewrite the zod converter's output needs, for paths and components alike. */
const normalize = (node: Json): Json => describeIntegers(toNullableEnums(toNullableMembers(toOpenApi30Bounds(node))));

/** Lifts the named schemas out of `paths` into `components.schemas`, smallest first so they nest. */
const extractComponents = (paths: Json): { paths: Json; schemas: Record<string, SchemaObject> } => {
  const named = [
    ...Object.entries(REQUEST_COMPONENTS).map(
      ([name, schema]) => [name, normalize(generateSchema(schema, false))] as const,
    ),
    ...Object.entries(RESPONSE_COMPONENTS).map(
      ([name, schema]) => [name, normalize(generateSchema(schema, true))] as const,
    ),
    [ERROR_ENVELOPE, normalize(generateSchema(ErrorEnvelopeSchema, true))] as const,
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

const SUCCESS_DESCRIPTIONS: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted: queued (for delivery, or an import to run).',
  304: 'Not modified: the order still reads as the entity tag If-None-Match names.',
};

/**
 * Headers the server sends (apps/server/src/http/rate-limit.ts and cors.ts): every API answer
 * passes the rate limiter, which writes the IETF `RateLimit` and `RateLimit-Policy` fields
 * (draft 8); a 429 adds `Retry-After`; CORS headers come when the Origin is allowed.
 */
const RESPONSE_HEADERS: Record<string, HeaderObject> = {
  RateLimit: {
    description:
      'The client\'s remaining quota in the current window (IETF draft-ietf-httpapi-ratelimit-headers-08), e.g. `"60-in-1min"; r=59; t=42`: `r` requests left, `t` seconds until the window resets.',
    schema: { type: 'string', maxLength: 200, example: '"60-in-1min"; r=59; t=42' },
  },
  'RateLimit-Policy': {
    description:
      'The limit applied (IETF draft 08), e.g. `"60-in-1min"; q=60; w=60; pk=:...:`: `q` requests per `w` seconds per client address (`RATE_LIMIT_PER_MINUTE`).',
    schema: { type: 'string', maxLength: 200, example: '"60-in-1min"; q=60; w=60; pk=:ZjAwZmMxOTE=:' },
  },
  'Access-Control-Allow-Origin': {
    description:
      "Sent only when the request's Origin is one of `ALLOWED_ORIGINS` (with `Access-Control-Allow-Credentials: true`); it then repeats that origin. No wildcard is ever sent.",
    schema: { type: 'string', maxLength: 2048, format: 'uri' },
  },
};
const RETRY_AFTER: HeaderObject = {
  description: 'Seconds until the rate-limit window resets.',
  required: true,
  schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 86_400 },
};
const headerRefs = (names: string[]) =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
const TOO_MANY_REQUESTS = '429';

/** The tag of routes whose metadata names none. */
const SALES_ORDERS_TAG = 'Sales orders';

const SECURITY_REQUIREMENTS: SecurityRequirementObject[] = [
  { bearerAuth: [] },
  { apiKeyAuth: [] },
  { sessionCookie: [] },
];

const describePermissions = (
  permissions: Permission[],
  { readsOrder, receivesEvents }: Partial<RouteAccess>,
): string | undefined => {
  if (permissions.length === 0) return undefined;
  const names = permissions.map((name) => `\`${name}\``).join(' and ');
  if (permissions.length === 1) return `Requires the ${names} permission.`;
  const why = [
    readsOrder ? 'it answers with the order (or its version, status or existence), which only a reader may see' : '',
    receivesEvents ? 'it makes events, which carry the order, reach the caller' : '',
  ].filter(Boolean);
  return `Requires the ${names} permissions: ${why.join('; ')}.`;
};

/** What a body's field values ask for beyond the route's permission (x-field-permissions), in words. */
const describeFieldPermissions = (fieldPermissions: readonly FieldPermission[]): string | undefined =>
  fieldPermissions.length === 0
    ? undefined
    : `A body with ${fieldPermissions
        .map(
          ({ field, value, permission }) =>
            `\`${field}\`: \`${JSON.stringify(value)}\` also requires \`${permission}\``,
        )
        .join('; with ')} (403 \`missing_permission\` naming it otherwise).`;

/** Per operation: its permission, examples, headers, and one error envelope component for every error. */
const describeOperation = (operation: OperationObject, route: AppRoute, bodyLimit: string): OperationObject => {
  const metadata = (route.metadata ?? {}) as Partial<RouteAccess> & { tag?: string };
  const { permission, tag = SALES_ORDERS_TAG, fieldPermissions = [] } = metadata;
  const permissions = permission ? requiredPermissions({ ...metadata, permission }) : [];
  const responses: Record<string, ResponseObject> = Object.fromEntries(
    // ts-rest types each response loosely; they are ResponseObjects.
    (Object.entries(operation.responses ?? {}) as [string, ResponseObject][]).map(
      ([status, response]): [string, ResponseObject] => {
        const headers = headerRefs([
          ...Object.keys(RESPONSE_HEADERS),
          ...(status === TOO_MANY_REQUESTS ? ['Retry-After'] : []),
        ]);
        if (Number(status) < 400) {
          // A success answered as text (import results): one media type per form it takes.
          const { textAnswers, csvAnswer } = metadata as { textAnswers?: readonly string[]; csvAnswer?: true };
          const text = { schema: { type: 'string' as const, maxLength: TEXT_BODY_MAX_LENGTH } };
          // A report answers JSON, or CSV when asked for it (Accept: text/csv): both forms.
          const content = textAnswers
            ? Object.fromEntries(textAnswers.map((type) => [type, text]))
            : csvAnswer
              ? { ...response.content, 'text/csv': text }
              : response.content;
          return [
            status,
            {
              ...response,
              ...(content ? { content } : {}),
              description: SUCCESS_DESCRIPTIONS[status] ?? response.description,
              headers,
            },
          ];
        }
        return [
          status,
          {
            description: response.description,
            headers,
            content: { 'application/json': { schema: { $ref: `#/components/schemas/${ERROR_ENVELOPE}` } } },
          },
        ];
      },
    ),
  );
  const operationId = operation.operationId ?? '';
  // Headers of one operation's answers (ETag, Location, Idempotent-Replayed, ...) beside the common ones.
  for (const [status, headers] of Object.entries(OPERATION_RESPONSE_HEADERS[operationId] ?? {})) {
    const response = responses[status];
    if (response) responses[status] = { ...response, headers: { ...response.headers, ...headers } };
  }
  const examples = OPERATION_EXAMPLES[operationId as keyof typeof OPERATION_EXAMPLES];
  if (examples) {
    for (const [status, example] of Object.entries(examples.responses) as [string, unknown][]) {
      const media = responses[status]?.content?.['application/json'];
      if (media) media.example = example;
    }
    const body = operation.requestBody as { content?: Record<string, { example?: unknown }> } | undefined;
    const bodyMedia = body?.content?.['application/json'];
    if (bodyMedia && 'request' in examples) bodyMedia.example = examples.request;
  }
  const requestBody = operation.requestBody as { description?: string; content?: Record<string, unknown> } | undefined;
  const { fileBody } = metadata as { fileBody?: readonly string[] };
  if (requestBody && fileBody) {
    // The body is a file (an import), not JSON: one text media type per format it may have.
    requestBody.description = 'The file, UTF-8, at most IMPORT_MAX_BYTES (20 MiB by default).';
    requestBody.content = Object.fromEntries(
      fileBody.map((type) => [type, { schema: { type: 'string', maxLength: TEXT_BODY_MAX_LENGTH } }]),
    );
  } else if (requestBody)
    requestBody.description = `JSON (\`application/json\`, UTF-8), at most ${bodyLimit} (\`BODY_LIMIT\`).`;
  // A path or query string has no JSON null: a coerced schema that would accept null in an
  // object (and so comes out `nullable`) takes none here.
  const parameters = (operation.parameters as ParameterObject[] | undefined)?.map((parameter) => {
    const { nullable: _nullable, ...schema } = (parameter.schema ?? {}) as SchemaObject;
    return { ...parameter, schema };
  });
  return {
    ...operation,
    ...(parameters ? { parameters } : {}),
    tags: [tag],
    description: [
      operation.description,
      describePermissions(permissions, metadata),
      describeFieldPermissions(fieldPermissions),
    ]
      .filter(Boolean)
      .join('\n\n'),
    security: SECURITY_REQUIREMENTS,
    responses,
    ...(permission ? { 'x-permission': permission, 'x-permissions': permissions } : {}),
    ...(fieldPermissions.length > 0 ? { 'x-field-permissions': fieldPermissions } : {}),
  };
};

export const createOpenApiDocument = ({
  serverUrl = '/api',
  sessionCookieName = 'erp_session',
  bodyLimit = '1mb',
  bulkMaxOrders = BULK_MAX_ORDERS_DEFAULT,
}: OpenApiOptions = {}): OpenAPIObject => {
  const generated = generateOpenApi(
    apiContract,
    { info: { title: 'Sales order service', version: API_VERSION } },
    {
      setOperationId: true,
      // ts-rest types its mapper with openapi3-ts 2; the shapes used here are the same in 3.0.
      operationMapper: (operation, route) => describeOperation(operation, route, bodyLimit) as never,
    },
  );
  const extracted = extractComponents(normalize(generated.paths));
  const { paths, schemas } = withDiscriminatorMappings(extracted, extracted.schemas);
  schemas[ERROR_DETAIL] = listDetailCodes(schemas[ERROR_DETAIL]!);
  // The contract takes up to the ceiling any setting may have; this service takes its own setting.
  const bulkOrders = schemas.BulkCreateSalesOrdersBody!.properties!.orders as SchemaObject;
  bulkOrders.maxItems = bulkMaxOrders;

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
    .addServer({
      url: serverUrl,
      description:
        'The deployment serving this document (local, staging or production alike): paths are relative to its BASE_PATH.',
      // Called by the host ERP and its users' pages, not by the public.
      'x-internal': true,
    })
    .addTag({ name: SALES_ORDERS_TAG, description: 'Orders, their totals, licences and form options.' })
    .addTag({
      name: 'Events',
      description:
        'The change feed: one event per change of an order, written in the same transaction, in commit order.',
    })
    .addTag({
      name: 'Imports',
      description:
        'Files of many orders (CSV or JSON Lines) created in the background, with progress and per-order results.',
    })
    .addTag({
      name: 'Webhooks',
      description:
        'Endpoints that receive every event as a signed Standard Webhooks delivery, at least once, retried on a schedule.',
    })
    .addTag({
      name: 'Reports',
      description:
        "Sales totals grouped by location, customer, product, month and more, over the caller's scope, summed " +
        'exactly; as JSON pages or CSV.',
    })
    .addTag({
      name: 'API keys',
      description:
        'Keys for machine callers: created with a secret shown once, rotated with a grace period, revoked, audited; ' +
        'never with more permissions or locations than their maker holds.',
    })
    .addSecurityScheme('bearerAuth', {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description:
        'A JWT (JWS) with `sub` and `permissions` (array) or `scope` (space-separated), verified as RFC8725 recommends: ' +
        'each configured key verifies exactly one algorithm, `alg: none` and algorithm substitution are refused, and ' +
        '`exp` and `nbf` are checked, and `iss` and `aud` when configured.',
    })
    .addSecurityScheme('apiKeyAuth', {
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      // Swagger UI's Authorize dialog sends this field's value as the whole header; the page
      // served at /docs adds the scheme to a bare key (apps/server/src/http/api-docs.ts).
      description:
        'An API key sent as `Authorization: ApiKey <key>`. In the Authorize dialog of /docs, paste the key as the CLI prints it (`sok_k43wr7r3_...`): the page adds `ApiKey ` before sending it (`ApiKey sok_...` works too).',
    })
    .addSecurityScheme('sessionCookie', {
      type: 'apiKey',
      in: 'cookie',
      name: sessionCookieName,
      description: 'The host ERP session. POST, PUT and DELETE must come from an allowed Origin.',
    });
  for (const [name, schema] of Object.entries(schemas)) builder.addSchema(name, schema);
  for (const [name, header] of Object.entries({ ...RESPONSE_HEADERS, 'Retry-After': RETRY_AFTER }))
    builder.addHeader(name, header);
  const document = builder.getSpec();
  document.paths = paths as OpenAPIObject['paths'];
  document.security = SECURITY_REQUIREMENTS;
  return document;
};
