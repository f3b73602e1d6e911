import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

import {
  createSalesOrderClient,
  type SalesOrderEvent,
  type SalesOrderEventType,
  verifyWebhook,
  WebhookVerificationError,
} from '@sales-order/client';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';

import { eventually } from './support/eventually.js';
import { orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

/** The SDK's events and webhook methods, and verifyWebhook in a receiver written as docs/sdk.md shows it. */
describe('SDK: events, webhook endpoints and verifyWebhook', () => {
  const suite = useServerWithFixtures({
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '300ms',
  });
  const client = async () =>
    createSalesOrderClient({
      baseUrl: suite.server.api,
      auth: { type: 'bearer', token: await signJwt({ payload: { permissions: ['*'] } }) },
    });

  it('a receiver verifies deliveries with verifyWebhook and gets typed events; forgeries and stale captures are refused', async () => {
    const sdk = await client();
    // The receiver: the raw body and the headers as Node hands them over.
    const received: { headers: IncomingHttpHeaders; body: Buffer }[] = [];
    const verified: ReturnType<typeof verifyWebhook>[] = [];
    let secret = '';
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        received.push({ headers: req.headers, body });
        try {
          verified.push(verifyWebhook(req.headers, body, secret));
          res.writeHead(204).end();
        } catch (error) {
          res.writeHead(error instanceof WebhookVerificationError ? 400 : 500).end();
        }
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      const endpoint = await sdk.createWebhookEndpoint({
        url,
        event_types: ['sales_order.created', 'sales_order.updated'],
      });
      secret = endpoint.secret;
      const ping = await sdk.pingWebhookEndpoint(endpoint.id);
      expect(ping).toMatchObject({ delivered: true, status_code: 204 });
      const { sales_order_id: id } = await sdk.createSalesOrder(orderBody(suite.fixtures));
      await sdk.updateSalesOrder(id, { remarks: 'typed' });
      await eventually(async () => verified.length === 3, 60_000);

      const [pinged, created, updated] = verified;
      expect(pinged).toMatchObject({
        type: 'webhook.ping',
        id: ping.event_id,
        data: { webhook_endpoint_id: endpoint.id },
      });
      if (created?.type !== 'sales_order.created' || updated?.type !== 'sales_order.updated')
        throw new Error('expected order events');
      // Typed as the contract's events: `data` is the order.
      expect([created.type, created.data.version, updated.type, updated.data.remarks]).toEqual([
        'sales_order.created',
        1,
        'sales_order.updated',
        'typed',
      ]);
      const events: SalesOrderEvent[] = [];
      // `after: undefined` means "from the oldest", as leaving it out does (never the text "undefined").
      const feed = sdk.events({ types: ['sales_order.updated'], limit: 1, after: undefined });
      for await (const event of feed) events.push(event);
      expect(events.find((event) => event.sales_order_id === id)?.id).toBe(updated.id);

      const { headers, body } = received[1]!;
      // A fetch Headers object works as well as Node's headers.
      const asFetchHeaders = new Headers(
        Object.entries(headers).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value]] : [])),
      );
      expect(verifyWebhook(asFetchHeaders, body.toString('utf8'), secret).id).toBe(created.id);
      expect(() => verifyWebhook(headers, body.toString('utf8').replace('"version":1', '"version":2'), secret)).toThrow(
        WebhookVerificationError,
      );
      expect(() => verifyWebhook(headers, body, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toThrow(
        WebhookVerificationError,
      );
      // Signed correctly but 6 minutes ago: a replayed capture.
      const old = new Date(Date.now() - 6 * 60_000);
      const stale = {
        'webhook-id': created.id,
        'webhook-timestamp': String(Math.floor(old.getTime() / 1000)),
        'webhook-signature': new Webhook(secret).sign(created.id, old, body.toString('utf8')),
      };
      expect(() => verifyWebhook(stale, body, secret)).toThrow(/too old/);

      // Rotation through the SDK: the next deliveries verify with either secret.
      const rotated = await sdk.rotateWebhookSecret(endpoint.id);
      const before = secret;
      await sdk.updateSalesOrder(id, { remarks: 'rotated' });
      await eventually(async () => received.length === 4, 60_000);
      expect(verifyWebhook(received[3]!.headers, received[3]!.body, rotated.secret).type).toBe('sales_order.updated');
      expect(verifyWebhook(received[3]!.headers, received[3]!.body, before).type).toBe('sales_order.updated');

      // The service records an attempt once the receiver has answered: a moment after it arrived.
      await eventually(async () => {
        const deliveries = await sdk.listWebhookDeliveries(endpoint.id, { limit: 10 });
        return deliveries.items.map((delivery) => delivery.status).join() === 'succeeded,succeeded,succeeded';
      }, 60_000);
      expect((await sdk.replayWebhookEvents(endpoint.id, { since: '2000-01-01 00:00:00' })).queued).toBe(3);
      expect((await sdk.getWebhookEndpoint(endpoint.id)).enabled).toBe(true);
      expect((await sdk.updateWebhookEndpoint(endpoint.id, { enabled: false })).disabled_reason).toBe('manual');
      expect((await sdk.listWebhookEndpoints()).items).toHaveLength(1);
      await sdk.deleteWebhookEndpoint(endpoint.id);
      await expect(sdk.getWebhookEndpoint(endpoint.id)).rejects.toMatchObject({ status: 404 });

      // The iterator says where to resume: from there, only what came after (the 'rotated' update).
      expect(feed.cursor).toEqual(expect.any(String));
      const types: SalesOrderEventType[] = ['sales_order.updated'];
      const since: SalesOrderEvent[] = [];
      const tail = sdk.events({ types, after: feed.cursor });
      for await (const event of tail) since.push(event);
      expect(since.map((event) => event.data.remarks)).toEqual(['rotated']);
      await sdk.updateSalesOrder(id, { remarks: 'after the cursor' });
      await eventually(async () => (await sdk.listEvents({ types, after: tail.cursor })).items.length > 0, 60_000);
      const resumed: SalesOrderEvent[] = [];
      for await (const event of sdk.events({ types, after: tail.cursor })) resumed.push(event);
      expect(resumed.map((event) => event.data.remarks)).toEqual(['after the cursor']);
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
