import type { HeaderObject } from 'openapi3-ts/oas30';

/**
 * Response headers per operation and status, for the OpenAPI document (ts-rest describes
 * request headers from the contract, but no response headers).
 */
const ETAG: HeaderObject = {
  description: 'The order\'s version as an entity tag, e.g. "3": send it back as If-Match (writes) or If-None-Match (reads).',
  schema: { type: 'string', example: '"3"' },
};
const RETRY_AFTER: HeaderObject = {
  description: 'Seconds to wait before retrying with the same Idempotency-Key and body.',
  schema: { type: 'integer', example: 10 },
};

export const RESPONSE_HEADERS: Record<string, Record<string, Record<string, HeaderObject>>> = {
  createSalesOrder: {
    201: {
      Location: { description: 'Address of the new order.', schema: { type: 'string', example: '/api/sales-orders/4' } },
      'Idempotent-Replayed': {
        description: '`true` when this is the stored response of an earlier request with the same Idempotency-Key (nothing was created now).',
        schema: { type: 'string', enum: ['true'] },
      },
    },
    409: { 'Retry-After': RETRY_AFTER },
  },
  getSalesOrder: { 200: { ETag: ETAG }, 304: { ETag: ETAG } },
  updateSalesOrder: { 200: { ETag: { ...ETAG, description: 'The order\'s new version, e.g. "4".' } } },
};
