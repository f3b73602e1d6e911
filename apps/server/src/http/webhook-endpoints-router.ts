import { webhookEndpointsContract } from '@sales-order/contract';
import { initServer } from '@ts-rest/express';

import type { Services } from '../services.js';
import { accessOf } from './access.js';
import { success } from './envelope.js';

const s = initServer();

/**
 * The webhook endpoint routes bound to their use cases. Handlers only translate; each works
 * within the caller's scope (its own endpoints, or all with webhooks.admin: events/webhook-endpoints.ts).
 */
export const createWebhookEndpointsRouter = ({ webhookEndpoints, webhookDeliveries }: Services) =>
  s.router(webhookEndpointsContract, {
    createWebhookEndpoint: async ({ body, req, res }) => {
      const created = await webhookEndpoints.create(body, accessOf(req));
      res.setHeader('Location', `${req.baseUrl}/webhook-endpoints/${created.id}`);
      return {
        status: 201,
        body: success(created, 'Webhook endpoint created: keep the secret, it is not shown again'),
      };
    },
    listWebhookEndpoints: async ({ req }) => ({
      status: 200,
      body: success(await webhookEndpoints.list(accessOf(req))),
    }),
    getWebhookEndpoint: async ({ params, req }) => ({
      status: 200,
      body: success(await webhookEndpoints.get(params.id, accessOf(req))),
    }),
    updateWebhookEndpoint: async ({ params, body, req }) => ({
      status: 200,
      body: success(await webhookEndpoints.update(params.id, body, accessOf(req))),
    }),
    deleteWebhookEndpoint: async ({ params, req }) => ({
      status: 200,
      body: success(await webhookEndpoints.remove(params.id, accessOf(req)), 'Webhook endpoint deleted'),
    }),
    rotateWebhookSecret: async ({ params, req }) => ({
      status: 200,
      body: success(
        await webhookEndpoints.rotateSecret(params.id, accessOf(req)),
        'Secret rotated: keep the new one, it is not shown again',
      ),
    }),
    listWebhookDeliveries: async ({ params, query, req }) => ({
      status: 200,
      body: success(await webhookDeliveries.list(params.id, query, accessOf(req))),
    }),
    replayWebhookEvents: async ({ params, body, req }) => ({
      status: 202,
      body: success(await webhookDeliveries.replay(params.id, body, accessOf(req))),
    }),
    pingWebhookEndpoint: async ({ params, req }) => ({
      status: 200,
      body: success(await webhookDeliveries.ping(params.id, accessOf(req))),
    }),
  });
