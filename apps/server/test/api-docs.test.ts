import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startTestServer, type TestServer } from './support/test-server.js';

describe('API documentation', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ BASE_PATH: '/erp/sales', BODY_LIMIT: '256kb' });
  });
  afterAll(() => server?.close());

  it('serves the OpenAPI document generated from the contract, with every route', async () => {
    const response = await request(server.api).get('/openapi.json').expect(200);
    const document = response.body;
    expect(document.openapi).toBe('3.0.3');
    expect(document.servers).toEqual([
      { url: '/erp/sales', description: expect.stringContaining('BASE_PATH'), 'x-internal': true },
    ]);
    // The body limit in force, not the default.
    expect(document.paths['/sales-orders'].post.requestBody.description).toContain('at most 256kb');
    expect(Object.keys(document.paths).sort()).toEqual(
      [
        '/sales-orders',
        '/sales-orders/bulk',
        '/sales-orders/calculate-totals',
        '/sales-orders/dropdown-options/{type}',
        '/sales-orders/max-number',
        '/sales-orders/validate-licence',
        '/sales-orders/{id}',
        '/sales-orders/{id}/history',
        '/sales-orders/{id}/confirm',
        '/sales-orders/{id}/cancel',
        '/sales-orders/{id}/close',
        '/sales-orders/{id}/amend',
        '/sales-orders/{id}/changes',
        '/sales-orders/{id}/changes/{change_id}/apply',
        '/sales-orders/{id}/changes/{change_id}/discard',
        '/reports/sales',
        '/events',
        '/webhook-endpoints',
        '/webhook-endpoints/{id}',
        '/webhook-endpoints/{id}/rotate-secret',
        '/webhook-endpoints/{id}/deliveries',
        '/webhook-endpoints/{id}/replay',
        '/webhook-endpoints/{id}/ping',
        '/imports',
        '/imports/{id}',
        '/imports/{id}/results',
        '/imports/{id}/cancel',
        '/api-keys',
        '/api-keys/{id}',
        '/api-keys/{id}/rotate',
        '/api-keys/{id}/revoke',
        '/api-keys/{id}/history',
        '/sales-orders/{id}/deliveries',
        '/deliveries',
        '/deliveries/{id}',
        '/deliveries/{id}/cancel',
        '/deliveries/{id}/returns',
      ].sort(),
    );
    const operations = Object.values(document.paths).flatMap((item) =>
      Object.values(item as Record<string, { operationId: string }>),
    );
    expect(operations.map((operation) => operation.operationId).sort()).toEqual(
      [
        'bulkCreateSalesOrders',
        'calculateTotals',
        'createSalesOrder',
        'deleteSalesOrder',
        'getDropdownOptions',
        'getMaxNumber',
        'getSalesOrder',
        'getSalesOrderHistory',
        'listSalesOrders',
        'updateSalesOrder',
        'validateLicence',
        'confirmSalesOrder',
        'cancelSalesOrder',
        'closeSalesOrder',
        'amendSalesOrder',
        'openChange',
        'listChanges',
        'applyChange',
        'discardChange',
        'getSalesReport',
        'listEvents',
        'createWebhookEndpoint',
        'listWebhookEndpoints',
        'getWebhookEndpoint',
        'updateWebhookEndpoint',
        'deleteWebhookEndpoint',
        'rotateWebhookSecret',
        'listWebhookDeliveries',
        'replayWebhookEvents',
        'pingWebhookEndpoint',
        'startImport',
        'listImports',
        'getImport',
        'getImportResults',
        'cancelImport',
        'createApiKey',
        'listApiKeys',
        'getApiKey',
        'updateApiKey',
        'rotateApiKey',
        'revokeApiKey',
        'listApiKeyHistory',
        'recordDelivery',
        'listOrderDeliveries',
        'listDeliveries',
        'getDelivery',
        'cancelDelivery',
        'recordReturn',
      ].sort(),
    );
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual([
      'apiKeyAuth',
      'bearerAuth',
      'sessionCookie',
    ]);
    // Swagger UI sends the API-key field as the whole header: the reference says what to paste (the page adds the scheme).
    expect(document.components.securitySchemes.apiKeyAuth.description).toContain(
      'In the Authorize dialog of /docs, paste the key as the CLI prints it',
    );
    expect(document.paths['/sales-orders/{id}'].get.responses['404'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ErrorEnvelope',
    });
  });

  it('serves an interactive reference whose assets all come from this server', async () => {
    const page = await request(server.api).get('/docs/').expect(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      expect(asset).not.toMatch(/^(https?:)?\/\//);
      const file = await request(server.api).get(`/docs/${asset.replace(/^\.\//, '')}`);
      expect(file.status, asset).toBe(200);
      expect(Number(file.headers['content-length']), asset).toBeGreaterThan(0);
    }
    const init = await request(server.api).get('/docs/swagger-ui-init.js').expect(200);
    expect(init.text).toContain('"operationId": "createSalesOrder"');
    expect(page.headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
  });
});
