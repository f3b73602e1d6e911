import type { HeaderObject } from 'openapi3-ts/oas30';

/**
 * Response headers per operation and status, for the OpenAPI document (ts-rest describes
 * request headers from the contract, but no response headers).
 */
const ETAG: HeaderObject = {
  description:
    'The order\'s entity tag, `"<version>-<digest of the representation>"`, e.g. "3-0a1B2c3D4e5F6g7H": it changes ' +
    'whenever the answer would (a renamed customer too). Send it back as If-Match (writes) or If-None-Match (reads).',
  schema: { type: 'string', maxLength: 80, example: '"3-0a1B2c3D4e5F6g7H"' },
};
const RETRY_AFTER: HeaderObject = {
  description: 'Seconds to wait before retrying with the same Idempotency-Key and body.',
  required: true,
  schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 3600, example: 10 },
};

const REPLAYED: HeaderObject = {
  description:
    '`true` when this is the stored response of an earlier request with the same Idempotency-Key (nothing was created now).',
  schema: { type: 'string', enum: ['true'], maxLength: 4 },
};

export const OPERATION_RESPONSE_HEADERS: Record<string, Record<string, Record<string, HeaderObject>>> = {
  createSalesOrder: {
    201: {
      Location: {
        description: 'Address of the new order.',
        schema: { type: 'string', maxLength: 2048, example: '/api/sales-orders/4' },
      },
      'Idempotent-Replayed': REPLAYED,
    },
    409: { 'Retry-After': RETRY_AFTER },
  },
  bulkCreateSalesOrders: {
    200: { 'Idempotent-Replayed': REPLAYED },
    201: { 'Idempotent-Replayed': REPLAYED },
    409: { 'Retry-After': RETRY_AFTER },
  },
  createApiKey: {
    201: {
      Location: {
        description: 'Address of the new key.',
        schema: { type: 'string', maxLength: 2048, example: '/api/api-keys/7' },
      },
    },
  },
  rotateApiKey: {
    201: {
      Location: {
        description: 'Address of the successor key.',
        schema: { type: 'string', maxLength: 2048, example: '/api/api-keys/8' },
      },
    },
  },
  getSalesOrder: { 200: { ETag: ETAG }, 304: { ETag: ETAG } },
  updateSalesOrder: { 200: { ETag: { ...ETAG, description: "The order's new entity tag." } } },
  confirmSalesOrder: { 200: { ETag: ETAG } },
  cancelSalesOrder: { 200: { ETag: ETAG } },
  closeSalesOrder: { 200: { ETag: ETAG } },
  amendSalesOrder: {
    201: {
      ETag: ETAG,
      Location: {
        description: 'Address of the new draft.',
        schema: { type: 'string', maxLength: 2048, example: '/api/sales-orders/9' },
      },
    },
  },
};
