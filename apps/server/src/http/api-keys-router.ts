import { apiKeysContract } from '@sales-order/contract';
import { initServer } from '@ts-rest/express';

import type { Services } from '../services.js';
import { managerOf } from './access.js';
import { success } from './envelope.js';

const s = initServer();

/** The API key routes bound to their use cases. Handlers only translate. */
export const createApiKeysRouter = ({ apiKeys }: Services) =>
  s.router(apiKeysContract, {
    createApiKey: async ({ body, req, res }) => {
      const created = await apiKeys.create(body, managerOf(req));
      res.setHeader('Location', `${req.baseUrl}/api-keys/${created.id}`);
      return { status: 201, body: success(created, 'API key created: keep the secret, it is not shown again') };
    },
    listApiKeys: async ({ query, req }) => ({ status: 200, body: success(await apiKeys.list(query, managerOf(req))) }),
    getApiKey: async ({ params, req }) => ({
      status: 200,
      body: success(await apiKeys.get(params.id, managerOf(req))),
    }),
    updateApiKey: async ({ params, body, req }) => ({
      status: 200,
      body: success(await apiKeys.rename(params.id, body.name, managerOf(req))),
    }),
    rotateApiKey: async ({ params, body, req, res }) => {
      const successor = await apiKeys.rotate(params.id, body, managerOf(req));
      res.setHeader('Location', `${req.baseUrl}/api-keys/${successor.id}`);
      return {
        status: 201,
        body: success(successor, 'API key rotated: keep the new secret, it is not shown again'),
      };
    },
    revokeApiKey: async ({ params, body, req }) => ({
      status: 200,
      body: success(await apiKeys.revoke(params.id, body, managerOf(req)), 'API key revoked'),
    }),
    listApiKeyHistory: async ({ params, query, req }) => ({
      status: 200,
      body: success(await apiKeys.history(params.id, query, managerOf(req))),
    }),
  });
