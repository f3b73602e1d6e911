import { z } from 'zod';

import { ErrorDetailSchema, successEnvelope } from './envelope.js';
import { CreatedSalesOrderSchema, CreateSalesOrderBodySchema } from './sales-order.js';
import { idempotencyKey } from './write-safety.js';

/**
 * Bulk create (`POST /sales-orders/bulk`): many orders in one call, each the body of a single
 * create, under one error policy. See docs/api.md, "Bulk create".
 */

/** Orders per call unless BULK_MAX_ORDERS says otherwise. */
export const BULK_MAX_ORDERS_DEFAULT = 100;
/**
 * The most BULK_MAX_ORDERS may be set to: the contract refuses more whatever the setting, and
 * the OpenAPI document a service serves states its own setting as `maxItems`.
 */
export const BULK_MAX_ORDERS_CEILING = 1000;

export const BULK_ERROR_POLICIES = ['reject_everything', 'reject_failed_rows'] as const;
export const BulkErrorPolicySchema = z
  .enum(BULK_ERROR_POLICIES)
  .describe(
    'reject_everything (the default): every order is created in one transaction or none is (201, or 422 naming each ' +
      'failing order); reject_failed_rows: each order stands alone (200 with one result per order).',
  );
export type BulkErrorPolicy = z.infer<typeof BulkErrorPolicySchema>;

/** One order of a bulk create: the single create's body, with an optional idempotency key of its own. */
const BulkOrderObject = CreateSalesOrderBodySchema.extend({
  idempotency_key: idempotencyKey()
    .optional()
    .describe(
      "This order's own idempotency key, with the semantics of the Idempotency-Key header on POST /sales-orders and in " +
        'the same space of the caller: an order already created with this key and the same body (this field aside) is ' +
        'answered with that order and created again never; the same key with another body fails this order with ' +
        '`idempotency_key_reused`. Re-send a partly failed batch whole with the same keys to get the earlier orders back.',
    ),
});
type BulkOrderObject = typeof BulkOrderObject;
/** Named (derived from the schema) so that the SDK's declarations refer to it instead of writing it out. */
export interface BulkOrderSchema extends BulkOrderObject {}
export const BulkOrderSchema: BulkOrderSchema = BulkOrderObject;

const BulkCreateSalesOrdersBodyObject = z.object({
  orders: z
    .array(BulkOrderSchema)
    .min(1)
    .max(BULK_MAX_ORDERS_CEILING)
    .describe(
      `The orders, each a POST /sales-orders body; at most BULK_MAX_ORDERS (${BULK_MAX_ORDERS_DEFAULT} by default; ` +
        'more is 400).',
    ),
  error_policy: BulkErrorPolicySchema.optional(),
});
type BulkCreateSalesOrdersBodyObject = typeof BulkCreateSalesOrdersBodyObject;
export interface BulkCreateSalesOrdersBodySchema extends BulkCreateSalesOrdersBodyObject {}
export const BulkCreateSalesOrdersBodySchema: BulkCreateSalesOrdersBodySchema = BulkCreateSalesOrdersBodyObject;

/** Why an order of a bulk create failed: the status and details its single create would have answered. */
export const BulkOrderErrorSchema = z.object({
  code: z.number().int().min(400).max(599).describe('The HTTP status a single create of this order would answer.'),
  message: ErrorDetailSchema.shape.message,
  details: z
    .array(ErrorDetailSchema)
    .max(100)
    .describe('As the single create would give them, each path prefixed with `orders.{index}.`.'),
});

const BulkOrderResultObject = z.object({
  index: z
    .number()
    .int()
    .min(0)
    .max(BULK_MAX_ORDERS_CEILING - 1)
    .describe('Position of the order in `orders`, from 0.'),
  status: z.enum(['created', 'failed']),
  order: CreatedSalesOrderSchema.optional().describe(
    'When created: the order (made now, or earlier with the same `idempotency_key`).',
  ),
  error: BulkOrderErrorSchema.optional().describe('When failed: why.'),
});
type BulkOrderResultObject = typeof BulkOrderResultObject;
export interface BulkOrderResultSchema extends BulkOrderResultObject {}
export const BulkOrderResultSchema: BulkOrderResultSchema = BulkOrderResultObject;

const BulkCreatedSalesOrdersObject = z.object({
  error_policy: BulkErrorPolicySchema,
  created: z.number().int().min(0).max(BULK_MAX_ORDERS_CEILING).describe('Orders with status created.'),
  failed: z.number().int().min(0).max(BULK_MAX_ORDERS_CEILING).describe('Orders with status failed.'),
  results: z
    .array(BulkOrderResultSchema)
    .max(BULK_MAX_ORDERS_CEILING)
    .describe('One per order, in the order of `orders`.'),
});
type BulkCreatedSalesOrdersObject = typeof BulkCreatedSalesOrdersObject;
export interface BulkCreatedSalesOrdersSchema extends BulkCreatedSalesOrdersObject {}
export const BulkCreatedSalesOrdersSchema: BulkCreatedSalesOrdersSchema = BulkCreatedSalesOrdersObject;

const BulkCreatedEnvelopeObject = successEnvelope(BulkCreatedSalesOrdersSchema);
type BulkCreatedEnvelopeObject = typeof BulkCreatedEnvelopeObject;
/** The answer of a bulk create (200 and 201 alike), named so that declarations write it once. */
export interface BulkCreatedEnvelopeSchema extends BulkCreatedEnvelopeObject {}
export const BulkCreatedEnvelopeSchema: BulkCreatedEnvelopeSchema = BulkCreatedEnvelopeObject;

export type BulkOrder = z.infer<typeof BulkOrderSchema>;
export type BulkCreateSalesOrdersBody = z.infer<typeof BulkCreateSalesOrdersBodySchema>;
export type BulkOrderError = z.infer<typeof BulkOrderErrorSchema>;
export type BulkOrderResult = z.infer<typeof BulkOrderResultSchema>;
export type BulkCreatedSalesOrders = z.infer<typeof BulkCreatedSalesOrdersSchema>;
