import { type CreatedApiKey, Permission } from '@sales-order/contract';
import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { useServerWithFixtures } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

/**
 * Key management never reaches above the manager: every key operation sees only keys whose
 * permissions and locations lie within the caller's own (others are 404, and left out of the
 * list), a key never makes a key that outlives it, and rotations at once make one successor.
 */

describe('API keys within their manager', () => {
  const suite = useServerWithFixtures();

  const as = (authorization: string) => ({
    get: (path: string) => request(suite.server.api).get(path).set('Authorization', authorization),
    post: (path: string, body: object = {}) =>
      request(suite.server.api).post(path).set('Authorization', authorization).send(body),
    patch: (path: string, body: object) =>
      request(suite.server.api).patch(path).set('Authorization', authorization).send(body),
  });
  const root = async () =>
    as(`Bearer ${await signJwt({ payload: { permissions: [Permission.all] }, subject: 'root', expiresIn: '1h' })}`);

  /** A key made by a `*` caller over HTTP. */
  const makeKey = async (body: object): Promise<CreatedApiKey> => {
    const response = await (await root()).post('/api-keys', { name: 'key', ...body });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body.data as CreatedApiKey;
  };

  const inFuture = (seconds: number) => new Date(Date.now() + seconds * 1_000).toISOString();

  it('a key holding api_keys.manage and sales_orders.read neither sees nor changes a key that holds more', async () => {
    const manager = await makeKey({ permissions: [Permission.apiKeysManage, Permission.read] });
    const all = await makeKey({ name: 'root key', permissions: [Permission.all] });
    // Not `*`, but one permission the manager lacks: just as far above it.
    const deleter = await makeKey({ name: 'deleter', permissions: [Permission.read, Permission.delete] });
    // Within it: seen and changed as before.
    const reader = await makeKey({ name: 'reader', permissions: [Permission.read] });
    const caller = as(`ApiKey ${manager.secret}`);

    for (const above of [all, deleter]) {
      const answers = {
        get: await caller.get(`/api-keys/${above.id}`),
        rename: await caller.patch(`/api-keys/${above.id}`, { name: 'taken over' }),
        rotate: await caller.post(`/api-keys/${above.id}/rotate`),
        revoke: await caller.post(`/api-keys/${above.id}/revoke`),
        history: await caller.get(`/api-keys/${above.id}/history`),
      };
      for (const [operation, answer] of Object.entries(answers))
        expect(answer.status, `${operation} ${above.name}: ${JSON.stringify(answer.body)}`).toBe(404);
      // Read as the root: untouched, and still the only key of its family.
      const after = (await (await root()).get(`/api-keys/${above.id}`)).body.data;
      expect(after).toMatchObject({ name: above.name, active: true, revoked_at: null, expires_at: null });
    }
    const successors = await suite.server.database.prisma.apiKey.count({
      where: { rotatedFromId: { in: [all.id, deleter.id] } },
    });
    expect(successors).toBe(0);

    const listed = (await caller.get('/api-keys?limit=200')).body.data.items as { id: number }[];
    const ids = listed.map(({ id }) => id);
    expect(ids).toContain(reader.id);
    expect(ids).toContain(manager.id);
    expect(ids).not.toContain(all.id);
    expect(ids).not.toContain(deleter.id);

    expect((await caller.patch(`/api-keys/${reader.id}`, { name: 'renamed' })).status).toBe(200);
    expect((await caller.get(`/api-keys/${reader.id}/history`)).status).toBe(200);
    expect((await caller.post(`/api-keys/${reader.id}/rotate`)).status).toBe(201);
  });

  it('a key that expires makes only keys that expire no later: a later expiry or none is 422 expiry_beyond_maker', async () => {
    const maker = await makeKey({
      permissions: [Permission.apiKeysManage, Permission.read],
      expires_at: inFuture(60),
    });
    const caller = as(`ApiKey ${maker.secret}`);
    for (const body of [{}, { expires_at: null }, { expires_at: inFuture(86_400) }]) {
      const refused = await caller.post('/api-keys', { name: 'outliver', permissions: [Permission.read], ...body });
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expect(refused.body.error.details).toEqual([
        { path: 'expires_at', message: expect.any(String), code: 'expiry_beyond_maker' },
      ]);
    }
    const within = await caller.post('/api-keys', {
      name: 'short',
      permissions: [Permission.read],
      expires_at: inFuture(30),
    });
    expect(within.status).toBe(201);

    // A rotation makes a key too: the successor of a key that never expires would never expire.
    const forever = await makeKey({ name: 'forever', permissions: [Permission.read] });
    const rotated = await caller.post(`/api-keys/${forever.id}/rotate`);
    expect(rotated.status).toBe(422);
    expect(rotated.body.error.details[0]).toMatchObject({ path: 'expires_at', code: 'expiry_beyond_maker' });
    expect((await caller.post(`/api-keys/${forever.id}/rotate`, { expires_at: inFuture(90_000) })).status).toBe(422);
    expect((await caller.post(`/api-keys/${forever.id}/rotate`, { expires_at: inFuture(30) })).status).toBe(201);
  });

  it('a revocation ahead bounds the keys a key makes as an expiry does; a person signed in is not bounded', async () => {
    const maker = await makeKey({ permissions: [Permission.apiKeysManage, Permission.read] });
    const caller = as(`ApiKey ${maker.secret}`);
    // Never expiring, and not revoked: it makes a key that never expires.
    expect((await caller.post('/api-keys', { name: 'a', permissions: [Permission.read] })).status).toBe(201);
    const revoked = await (await root()).post(`/api-keys/${maker.id}/revoke`, { revoke_in_seconds: 120 });
    expect(revoked.status).toBe(200);
    const refused = await caller.post('/api-keys', { name: 'b', permissions: [Permission.read] });
    expect(refused.status).toBe(422);
    expect(refused.body.error.details[0].code).toBe('expiry_beyond_maker');
    const token = await signJwt({
      payload: { permissions: [Permission.apiKeysManage, Permission.read] },
      subject: 'clerk',
      expiresIn: '5m',
    });
    expect((await as(`Bearer ${token}`).post('/api-keys', { name: 'c', permissions: [Permission.read] })).status).toBe(
      201,
    );
  });

  it('twelve rotations of one key at once: one 201 and eleven 409, one successor', async () => {
    const key = await makeKey({ name: 'busy', permissions: [Permission.read] });
    const caller = await root();
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => caller.post(`/api-keys/${key.id}/rotate`, { expire_current_in_seconds: 60 })),
    );
    const statuses = answers.map(({ status }) => status).sort();
    expect(statuses, JSON.stringify(answers.map(({ body }) => body as unknown))).toEqual([
      201,
      ...Array<number>(11).fill(409),
    ]);
    for (const answer of answers.filter(({ status }) => status === 409))
      expect(answer.body.error.details[0].code).toBe('api_key_already_rotated');
    expect(await suite.server.database.prisma.apiKey.count({ where: { rotatedFromId: key.id } })).toBe(1);
  });
});
