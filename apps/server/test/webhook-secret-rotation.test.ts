import { PREVIOUS_SECRETS_MAX, type WebhookEndpoint } from '@sales-order/contract';
import { afterAll, describe, expect, it } from 'vitest';

import { useServerWithFixtures } from './support/test-server.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

/**
 * Rotating twice within the overlap window used to drop the first secret at
 * once. Every replaced secret now signs until its own expiry, at most PREVIOUS_SECRETS_MAX at
 * once. A real receiver verifies each ping with the `standardwebhooks` package.
 */
describe('webhook secret rotation', () => {
  const suite = useServerWithFixtures({
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_TIMEOUT_MS: '2000',
  });
  let target: WebhookReceiver | undefined;
  afterAll(() => target?.close());

  const rotate = (id: number) => suite.server.http.post(`/webhook-endpoints/${id}/rotate-secret`);
  /** The signatures of a ping just received, and which of `secrets` verify it. */
  const ping = async (id: number, secrets: string[]) => {
    await suite.server.http.post(`/webhook-endpoints/${id}/ping`).expect(200);
    const received = target!.received.at(-1)!;
    return {
      signatures: String(received.headers['webhook-signature']).split(' ').length,
      verifying: secrets.map((secret) => target!.verifies(received, secret)),
    };
  };

  it('keeps every secret replaced within the window signing until its own expiry; a sixth is refused with 422', async () => {
    target = await startWebhookReceiver();
    const created = (await suite.server.http.post('/webhook-endpoints').send({ url: target.url }).expect(201)).body
      .data as WebhookEndpoint & { secret: string };
    const secrets = [created.secret];
    for (let rotation = 1; rotation <= 2; rotation += 1) {
      const rotated = (await rotate(created.id).expect(200)).body.data;
      secrets.push(rotated.secret);
    }
    // Twice within 24 h: the original secret still verifies, as does the first replacement.
    expect(await ping(created.id, secrets)).toEqual({ signatures: 3, verifying: [true, true, true] });

    for (let rotation = 3; rotation <= PREVIOUS_SECRETS_MAX; rotation += 1) {
      secrets.push((await rotate(created.id).expect(200)).body.data.secret);
    }
    const refused = await rotate(created.id).expect(422);
    expect(refused.body.error.details).toEqual([
      expect.objectContaining({ path: '', code: 'too_many_webhook_secrets' }),
    ]);
    // Refused means unchanged: the same six secrets sign.
    expect(await ping(created.id, secrets)).toEqual({
      signatures: PREVIOUS_SECRETS_MAX + 1,
      verifying: secrets.map(() => true),
    });

    // The oldest replaced secret's window ends: it stops signing, and a rotation is allowed again.
    const { prisma } = suite.server.database;
    await prisma.$executeRaw`UPDATE webhook_previous_secrets SET expires_at = now() - interval '1 second'
      WHERE endpoint_id = ${created.id} AND secret = ${secrets[0]}`;
    const after = await ping(created.id, secrets);
    expect(after).toEqual({
      signatures: PREVIOUS_SECRETS_MAX,
      verifying: [false, ...secrets.slice(1).map(() => true)],
    });
    const rotated = (await rotate(created.id).expect(200)).body.data;
    const read = (await suite.server.http.get(`/webhook-endpoints/${created.id}`).expect(200)).body.data;
    expect(read.previous_secret_expires_at).toBe(rotated.previous_secret_expires_at);
    const [{ kept }] = await prisma.$queryRaw<[{ kept: number }]>`
      SELECT count(*)::int AS kept FROM webhook_previous_secrets WHERE endpoint_id = ${created.id}`;
    expect(kept).toBe(PREVIOUS_SECRETS_MAX);
  });
});
