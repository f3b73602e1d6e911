import { webhookEndpointsContract } from '@sales-order/contract';
import { initServer } from '@ts-rest/express';

import type { Services } from '../services.js';
import { accessOf } from './access.js';
import { success } from './envelope.js';

const s = initServer();

/** The webhook endpoint routes bound to their use cases. Handlers only translate. */
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
    listWebhookEndpoints: async () => ({ status: 200, body: success(await webhookEndpoints.list()) }),
    getWebhookEndpoint: async ({ params }) => ({ status: 200, body: success(await webhookEndpoints.get(params.id)) }),
    updateWebhookEndpoint: async ({ params, body }) => ({
      status: 200,
      body: success(await webhookEndpoints.update(params.id, body)),
    }),
    deleteWebhookEndpoint: async ({ params }) => ({
      status: 200,
      body: success(await webhookEndpoints.remove(params.id), 'Webhook endpoint deleted'),
    }),
    rotateWebhookSecret: async ({ params }) => ({
      status: 200,
      body: success(
        await webhookEndpoints.rotateSecret(params.id),
        'Secret rotated: keep the new one, it is not shown again',
      ),
    }),
    listWebhookDeliveries: async ({ params, query }) => ({
      status: 200,
      body: success(await webhookDeliveries.list(params.id, query)),
    }),
    replayWebhookEvents: async ({ params, body }) => ({
      status: 202,
      body: success(await webhookDeliveries.replay(params.id, body)),
    }),
    pingWebhookEndpoint: async ({ params }) => ({
      status: 200,
      body: success(await webhookDeliveries.ping(params.id)),
    }),
  });
