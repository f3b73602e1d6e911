import {
  type CreatedWebhookEndpoint,
  type CreateWebhookEndpointBody,
  type DeletedWebhookEndpoint,
  Permission,
  PREVIOUS_SECRET_HOURS,
  PREVIOUS_SECRETS_MAX,
  type RotatedWebhookSecret,
  type UpdateWebhookEndpointBody,
  WEBHOOK_ENDPOINTS_MAX,
  WebhookCode,
  type WebhookEndpoint,
  type WebhookEndpointList,
} from '@sales-order/contract';

import { type AccessContext, hasPermission, identityOf } from '../auth/access-context.js';
import { scopeOf } from '../auth/scope.js';
import type { TransactionPort } from '../db/transactions.js';
import { notFound, unprocessable } from '../errors/domain-error.js';
import { checkHost, type Resolver } from './address-guard.js';
import type { DeliveryQueue } from './delivery-queue.js';
import { webhookDeliveryStore } from './store/webhook-delivery-store.js';
import { type EndpointScope, webhookEndpointStore } from './store/webhook-endpoint-store.js';
import { newWebhookSecret } from './webhook-signing.js';

/** Registering, changing and removing webhook endpoints, and rotating their secrets. */

export interface WebhookDeps {
  transactions: TransactionPort;
  queue: DeliveryQueue;
  resolve: Resolver;
  allowHttp: boolean;
  allowPrivateNetworks: boolean;
}

const endpointNotFound = (id: number) => notFound(`webhook endpoint ${id} not found`);

/**
 * The webhook endpoints a caller may see and change: the ones it registered (its identity across
 * methods), or every one with webhooks.admin, inside its locations. Another's endpoint answers
 * 404, as if it did not exist.
 */
export const endpointScopeOf = (access: AccessContext): EndpointScope => ({
  owner: identityOf(access),
  all: hasPermission(access, Permission.webhooksAdmin),
  scope: scopeOf(access),
  permissions: [...access.permissions],
});

/**
 * The URL rules that depend on the service's settings (its shape the contract checked): https
 * unless http is allowed, and a host whose every address is public unless private networks
 * are allowed. Refusals are 422 on `url`.
 */
const checkUrl = async ({ resolve, allowHttp, allowPrivateNetworks }: WebhookDeps, text: string): Promise<void> => {
  const url = new URL(text);
  if (url.protocol === 'http:' && !allowHttp) {
    throw unprocessable([
      {
        path: 'url',
        message: 'must be https:// (http:// only with WEBHOOK_ALLOW_HTTP=true)',
        code: WebhookCode.urlNotHttps,
      },
    ]);
  }
  const check = await checkHost(url, resolve, allowPrivateNetworks);
  if (check.ok) return;
  throw unprocessable([
    check.reason === 'refused'
      ? { path: 'url', message: check.error.message, code: WebhookCode.addressNotAllowed }
      : { path: 'url', message: check.message, code: WebhookCode.hostUnresolvable },
  ]);
};

export const createWebhookEndpoints = (deps: WebhookDeps) => {
  const { transactions, queue } = deps;
  return {
    /** Registers an endpoint that belongs to the caller (its identity). */
    create: async (input: CreateWebhookEndpointBody, access: AccessContext): Promise<CreatedWebhookEndpoint> => {
      await checkUrl(deps, input.url);
      const secret = newWebhookSecret();
      const created = await transactions.withTransaction(async (tx) => {
        await webhookEndpointStore.lockRegistrations(tx);
        return webhookEndpointStore.insert(
          tx,
          {
            url: input.url,
            description: input.description ?? null,
            eventTypes: input.event_types ?? null,
            secret,
            createdBy: access.subject,
            owner: identityOf(access),
            locations: access.locations,
            ownerPermissions: [...access.permissions],
          },
          WEBHOOK_ENDPOINTS_MAX,
        );
      });
      if (!created) {
        throw unprocessable([
          {
            path: '',
            message: `the service holds ${WEBHOOK_ENDPOINTS_MAX} webhook endpoints, its maximum: delete one first`,
            code: WebhookCode.tooManyEndpoints,
          },
        ]);
      }
      return { ...created, secret };
    },

    list: async (access: AccessContext): Promise<WebhookEndpointList> => ({
      items: await webhookEndpointStore.list(transactions.db, endpointScopeOf(access)),
    }),

    get: async (id: number, access: AccessContext): Promise<WebhookEndpoint> => {
      const endpoint = await webhookEndpointStore.find(transactions.db, id, endpointScopeOf(access));
      if (!endpoint) throw endpointNotFound(id);
      return endpoint;
    },

    /**
     * Applies a change. Enabling again resumes the endpoint's pending deliveries: their jobs are
     * queued in the same transaction.
     */
    update: async (id: number, input: UpdateWebhookEndpointBody, access: AccessContext): Promise<WebhookEndpoint> => {
      const scope = endpointScopeOf(access);
      if (input.url !== undefined) await checkUrl(deps, input.url);
      const updated = await transactions.withTransaction(async (tx) => {
        const endpoint = await webhookEndpointStore.update(
          tx,
          id,
          { url: input.url, description: input.description, eventTypes: input.event_types, enabled: input.enabled },
          scope,
        );
        if (endpoint && input.enabled === true) {
          await queue.schedule(await webhookDeliveryStore.pendingKeys(tx, id), { db: tx });
        }
        return endpoint;
      });
      if (!updated) throw endpointNotFound(id);
      if (input.enabled === true) queue.wake();
      // Disabled: its queued jobs leave the queue now rather than each taking a sending slot.
      if (input.enabled === false) await queue.park(id);
      return updated;
    },

    remove: async (id: number, access: AccessContext): Promise<DeletedWebhookEndpoint> => {
      if (!(await webhookEndpointStore.delete(transactions.db, id, endpointScopeOf(access))))
        throw endpointNotFound(id);
      await queue.park(id);
      return { id, deleted: true };
    },

    /**
     * A new secret; every replaced one keeps signing until its own expiry, at most
     * PREVIOUS_SECRETS_MAX at once (422 beyond: a receiver cannot be asked to check more).
     */
    rotateSecret: async (id: number, access: AccessContext): Promise<RotatedWebhookSecret> => {
      const scope = endpointScopeOf(access);
      const secret = newWebhookSecret();
      const rotated = await transactions.withTransaction((tx) =>
        webhookEndpointStore.rotateSecret(
          tx,
          id,
          secret,
          { previousValidHours: PREVIOUS_SECRET_HOURS, maximum: PREVIOUS_SECRETS_MAX },
          scope,
        ),
      );
      if (rotated === null) throw endpointNotFound(id);
      if (rotated === 'full') {
        throw unprocessable([
          {
            path: '',
            message:
              `${PREVIOUS_SECRETS_MAX} replaced secrets of this endpoint still sign (each for ${PREVIOUS_SECRET_HOURS} h ` +
              'after its rotation): rotate again once the oldest has expired',
            code: WebhookCode.tooManySecrets,
          },
        ]);
      }
      return { secret, previous_secret_expires_at: rotated.previousExpiresAt };
    },
  };
};

export type WebhookEndpoints = ReturnType<typeof createWebhookEndpoints>;
