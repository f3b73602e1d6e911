import { type ApiKey, type CreatedApiKey, Permission } from '@sales-order/contract';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';

import { answeredOtherwiseAfter, callUntil, eventually } from './support/eventually.js';
import { orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

/** API keys managed over HTTP: create, list, read, rename, rotate, revoke, history, no escalation. */

const KEY_SHAPE = /^sok_[a-z2-7]{8}_[A-Za-z0-9_-]{43}$/;
const ORDERS = '/sales-orders/calculate-totals';
const TOTALS_BODY = { details: [{ quantity: 1, rate: 7 }] };

describe('API keys over HTTP', () => {
  const suite = useServerWithFixtures();
  let manager: string;

  /** A caller by JWT holding exactly these permissions. */
  const tokenWith = (permissions: string[], subject = 'key-admin') =>
    signJwt({ payload: { permissions }, subject, expiresIn: '1h' });
  const asToken = (token: string) => ({
    get: (path: string) => request(suite.server.api).get(path).set('Authorization', `Bearer ${token}`),
    post: (path: string, body: object = {}) =>
      request(suite.server.api).post(path).set('Authorization', `Bearer ${token}`).send(body),
    patch: (path: string, body: object) =>
      request(suite.server.api).patch(path).set('Authorization', `Bearer ${token}`).send(body),
  });
  const asKey = (key: string) => ({
    get: (path: string) => request(suite.server.api).get(path).set('Authorization', `ApiKey ${key}`),
    post: (path: string, body: object = {}) =>
      request(suite.server.api).post(path).set('Authorization', `ApiKey ${key}`).send(body),
  });
  const useKey = async (key: string) => (await asKey(key).post(ORDERS, TOTALS_BODY)).status;

  const create = async (body: object, token = manager): Promise<CreatedApiKey> => {
    const response = await asToken(token).post('/api-keys', body);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body.data as CreatedApiKey;
  };

  beforeAll(async () => {
    manager = await tokenWith([Permission.apiKeysManage, Permission.read, Permission.create]);
  });

  it('creates a key that works at once, shows its secret once, and never again', async () => {
    const response = await asToken(manager).post('/api-keys', {
      name: 'Warehouse sync',
      permissions: [Permission.read, Permission.read],
      expires_at: '2099-01-01T00:00:00Z',
    });
    expect(response.status).toBe(201);
    const created = response.body.data as CreatedApiKey;
    expect(response.headers.location).toBe(`/api/api-keys/${created.id}`);
    expect(created).toMatchObject({
      name: 'Warehouse sync',
      permissions: [Permission.read],
      locations: null,
      active: true,
      created_by: 'key-admin',
      expires_at: '2099-01-01 00:00:00',
      revoked_at: null,
      rotated_from_id: null,
    });
    expect(created.secret).toMatch(KEY_SHAPE);
    expect(created.prefix).toBe(created.secret.slice(0, 12));
    expect(await useKey(created.secret)).toBe(200);

    const secretPart = created.secret.slice(13);
    const read = await asToken(manager).get(`/api-keys/${created.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data).not.toHaveProperty('secret');
    const listed = await asToken(manager).get('/api-keys');
    const history = await asToken(manager).get(`/api-keys/${created.id}/history`);
    for (const body of [read.body, listed.body, history.body]) expect(JSON.stringify(body)).not.toContain(secretPart);
    // Nothing the database holds has it either: only its SHA-256.
    const rows = await suite.server.database.prisma.$queryRaw<unknown[]>`
      SELECT row_to_json(k)::text AS k FROM api_keys k UNION ALL SELECT row_to_json(c)::text FROM api_key_changes c`;
    expect(JSON.stringify(rows)).not.toContain(secretPart);
  });

  it('refuses a past expiry (422), unknown permissions (400) and callers without api_keys.manage (403)', async () => {
    const past = await asToken(manager).post('/api-keys', {
      name: 'x',
      permissions: [Permission.read],
      expires_at: '2001-01-01 00:00:00',
    });
    expect(past.status).toBe(422);
    expect(past.body.error.details[0]).toMatchObject({ path: 'expires_at', code: 'expiry_in_past' });
    const unknown = await asToken(manager).post('/api-keys', { name: 'x', permissions: ['orders.everything'] });
    expect(unknown.status).toBe(400);
    const reader = await tokenWith([Permission.read, Permission.eventsRead]);
    const refused = await asToken(reader).post('/api-keys', { name: 'x', permissions: [Permission.read] });
    expect(refused.status).toBe(403);
    expect(refused.body.error.details[0].code).toBe('missing_permission');
    expect((await asToken(reader).get('/api-keys')).status).toBe(403);
  });

  describe('no escalation by permission', () => {
    it('refuses a permission the caller does not hold, `*` included, and makes nothing', async () => {
      const before = await suite.server.database.prisma.apiKey.count();
      const attempts: Permission[][] = [
        [Permission.read, Permission.webhooksManage],
        [Permission.all],
        [Permission.delete],
      ];
      for (const permissions of attempts) {
        const response = await asToken(manager).post('/api-keys', { name: 'grab', permissions });
        expect(response.status, JSON.stringify(permissions)).toBe(403);
        const refused = permissions.filter((permission) => permission !== Permission.read);
        expect(response.body.error.details).toEqual(
          refused.map((permission) => ({
            path: `permissions.${permissions.indexOf(permission)}`,
            message: expect.stringContaining(permission),
            code: 'permission_not_held',
          })),
        );
      }
      expect(await suite.server.database.prisma.apiKey.count()).toBe(before);
    });

    it('lets a key make keys only within its own permissions, and a holder of * make any', async () => {
      const keyManager = await create({
        name: 'manager key',
        permissions: [Permission.apiKeysManage, Permission.read],
      });
      const made = await asKey(keyManager.secret).post('/api-keys', {
        name: 'child',
        permissions: [Permission.read],
      });
      expect(made.status).toBe(201);
      expect(made.body.data.created_by).toBe(`api_key:${keyManager.prefix}`);
      const grab = await asKey(keyManager.secret).post('/api-keys', {
        name: 'child',
        permissions: [Permission.create],
      });
      expect(grab.status).toBe(403);
      const admin = await tokenWith([Permission.all], 'root');
      expect((await asToken(admin).post('/api-keys', { name: 'all', permissions: [Permission.all] })).status).toBe(201);
    });

    it('does not find, so cannot rotate, a key whose permissions the caller does not hold', async () => {
      const admin = await tokenWith([Permission.all], 'root');
      const strong = await create({ name: 'strong', permissions: [Permission.delete] }, admin);
      const response = await asToken(manager).post(`/api-keys/${strong.id}/rotate`);
      expect(response.status).toBe(404);
      expect(await useKey(strong.secret)).toBe(403); // still the same key: delete cannot calculate totals
      const read = await asToken(admin).get(`/api-keys/${strong.id}`);
      expect(read.body.data).toMatchObject({ active: true, expires_at: null });
    });
  });

  it('renames a key (and nothing else), recorded in its history', async () => {
    const key = await create({ name: 'old name', permissions: [Permission.read] });
    const renamed = await asToken(manager).patch(`/api-keys/${key.id}`, { name: 'new name' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ id: key.id, name: 'new name', permissions: [Permission.read] });
    // Fields other than the name are not the route's: ignored, like every unknown field.
    const other = await asToken(manager).patch(`/api-keys/${key.id}`, { permissions: ['*'], name: 'new name' });
    expect(other.body.data.permissions).toEqual([Permission.read]);
    const history = (await asToken(manager).get(`/api-keys/${key.id}/history`)).body.data;
    expect(history.items.map((entry: { action: string }) => entry.action)).toEqual(['created', 'renamed']);
    expect(history.items[1]).toMatchObject({
      actor: 'key-admin',
      changes: [{ field: 'name', from: 'old name', to: 'new name' }],
    });
    expect((await asToken(manager).patch('/api-keys/999999', { name: 'x' })).status).toBe(404);
  });

  it('rotates: a successor with the same name and permissions; both work during the grace, then only the successor', async () => {
    const current = await create({ name: 'mobile app', permissions: [Permission.read] });
    const response = await asToken(manager).post(`/api-keys/${current.id}/rotate`, { expire_current_in_seconds: 3 });
    expect(response.status).toBe(201);
    const successor = response.body.data as CreatedApiKey;
    expect(response.headers.location).toBe(`/api/api-keys/${successor.id}`);
    expect(successor).toMatchObject({
      name: 'mobile app',
      permissions: [Permission.read],
      rotated_from_id: current.id,
      active: true,
    });
    expect(successor.secret).not.toBe(current.secret);
    expect(await useKey(current.secret)).toBe(200);
    expect(await useKey(successor.secret)).toBe(200);
    const old = (await asToken(manager).get(`/api-keys/${current.id}`)).body.data as ApiKey;
    expect(old.expires_at).not.toBeNull();
    await eventually(async () => (await useKey(current.secret)) === 401, 60_000);
    expect(await useKey(successor.secret)).toBe(200);

    const again = await asToken(manager).post(`/api-keys/${current.id}/rotate`);
    expect(again.status).toBe(409);
    expect(again.body.error.details[0].code).toBe('api_key_not_active');
    const history = (await asToken(manager).get(`/api-keys/${current.id}/history`)).body.data;
    expect(history.items[1]).toMatchObject({
      action: 'rotated',
      changes: [
        { field: 'expires_at', from: null, to: old.expires_at },
        { field: 'successor_id', from: null, to: successor.id },
      ],
    });
  });

  it('refuses a second rotation of a key in its grace (409), and a grace beyond 7 days (400)', async () => {
    const current = await create({ name: 'twice', permissions: [Permission.read] });
    expect(
      (await asToken(manager).post(`/api-keys/${current.id}/rotate`, { expire_current_in_seconds: 604_801 })).status,
    ).toBe(400);
    expect(
      (await asToken(manager).post(`/api-keys/${current.id}/rotate`, { expire_current_in_seconds: 604_800 })).status,
    ).toBe(201);
    const second = await asToken(manager).post(`/api-keys/${current.id}/rotate`);
    expect(second.status).toBe(409);
    expect(second.body.error.details[0].code).toBe('api_key_already_rotated');
  });

  it('revokes now, or after revoke_in_seconds; a revoked key cannot be revoked again', async () => {
    const now = await create({ name: 'now', permissions: [Permission.read] });
    const revoked = await asToken(manager).post(`/api-keys/${now.id}/revoke`);
    // Refused on every use sent 8 s after the revocation (under the 10 s TTL a missed notice takes).
    const revokedAt = Date.now();
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({ active: false, revoked_by: 'key-admin' });
    expect(answeredOtherwiseAfter(await callUntil(() => useKey(now.secret), 401), revokedAt, 8_000)).toEqual([]);
    expect((await asToken(manager).post(`/api-keys/${now.id}/revoke`)).status).toBe(409);

    const later = await create({ name: 'later', permissions: [Permission.read] });
    const scheduled = await asToken(manager).post(`/api-keys/${later.id}/revoke`, { revoke_in_seconds: 3 });
    expect(scheduled.body.data).toMatchObject({ active: true, revoked_by: 'key-admin' });
    expect(scheduled.body.data.revoked_at).not.toBeNull();
    expect(await useKey(later.secret)).toBe(200);
    await eventually(async () => (await useKey(later.secret)) === 401, 60_000);
  });

  it('a key revokes itself only with confirm_self: true', async () => {
    const self = await create({ name: 'self', permissions: [Permission.apiKeysManage, Permission.read] });
    const refused = await asKey(self.secret).post(`/api-keys/${self.id}/revoke`);
    expect(refused.status).toBe(422);
    expect(refused.body.error.details[0]).toMatchObject({ path: 'confirm_self', code: 'confirm_self_required' });
    expect(await useKey(self.secret)).toBe(200);
    // Another caller needs no confirmation; the key itself does.
    const confirmed = await asKey(self.secret).post(`/api-keys/${self.id}/revoke`, { confirm_self: true });
    expect(confirmed.status).toBe(200);
    const revokedAt = Date.now();
    expect(answeredOtherwiseAfter(await callUntil(() => useKey(self.secret), 401), revokedAt, 8_000)).toEqual([]);
  });

  it('lists newest first by keyset pages, filtered by active and by name', async () => {
    const tag = `page-${Date.now()}`;
    const made: CreatedApiKey[] = [];
    for (let index = 0; index < 5; index += 1)
      made.push(await create({ name: `${tag} ${index}`, permissions: [Permission.read] }));
    await asToken(manager).post(`/api-keys/${made[1]!.id}/revoke`);
    const seen: number[] = [];
    let cursor: number | null = null;
    do {
      const query: string = `/api-keys?name=${encodeURIComponent(tag.toUpperCase())}&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page = (await asToken(manager).get(query)).body.data as { items: ApiKey[]; next_cursor: number | null };
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((item) => item.id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual(made.map((key) => key.id).reverse());
    const active = (await asToken(manager).get(`/api-keys?name=${tag}&active=true`)).body.data.items as ApiKey[];
    expect(active.map((key) => key.id)).toEqual(
      made
        .filter((_, index) => index !== 1)
        .map((key) => key.id)
        .reverse(),
    );
    const inactive = (await asToken(manager).get(`/api-keys?name=${tag}&active=false`)).body.data.items as ApiKey[];
    expect(inactive.map((key) => key.id)).toEqual([made[1]!.id]);
    // LIKE's wildcards are plain characters in a name search.
    expect((await asToken(manager).get('/api-keys?name=%25')).body.data.items).toEqual([]);
  });

  describe('keys limited to locations', () => {
    /** A key-managing caller by JWT scoped to these locations (codes or ids). */
    const scopedManager = (locations: (string | number)[], subject = 'dhaka-admin') =>
      signJwt({
        payload: { permissions: [Permission.apiKeysManage, Permission.read, Permission.create], locations },
        subject,
        expiresIn: '1h',
      });
    const locations = () => suite.fixtures.locations;
    const keyCount = () => suite.server.database.prisma.apiKey.count();
    /** The order ids a key sees on GET /sales-orders, and the total it is told. */
    const ordersSeenBy = async (secret: string) => {
      const response = await asKey(secret).get('/sales-orders?include_total=true&limit=200');
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return {
        total: response.body.data.total as number,
        ids: (response.body.data.items as { sales_order_id: number }[]).map((item) => item.sales_order_id).sort(),
      };
    };

    it('creates a key by codes and ids (shown as ids), and the key is scoped when it is used', async () => {
      const { dhaka, chattogram } = locations();
      const orderIn = async (locationId: number) =>
        (
          await suite.server.http
            .post('/sales-orders')
            .send(orderBody(suite.fixtures, { location_id: locationId }))
            .expect(201)
        ).body.data.sales_order_id as number;
      const inDhaka = await orderIn(dhaka.id);
      const inCtg = await orderIn(chattogram.id);

      const dhakaKey = await create({
        name: 'Dhaka depot app',
        permissions: [Permission.read],
        locations: ['dhk', dhaka.id, String(dhaka.id)],
      });
      expect(dhakaKey.locations).toEqual([dhaka.id]);
      const both = await create({
        name: 'both',
        permissions: [Permission.read],
        locations: [chattogram.code, dhaka.id],
      });
      expect(both.locations).toEqual([dhaka.id, chattogram.id].sort((a, b) => a - b));
      const none = await create({ name: 'none', permissions: [Permission.read], locations: [] });
      expect(none.locations).toEqual([]);
      const all = await create({ name: 'all', permissions: [Permission.read], locations: null });
      expect(all.locations).toBeNull();
      const omitted = await create({ name: 'omitted', permissions: [Permission.read] });
      expect(omitted.locations).toBeNull();

      // As read back (raw SQL: an empty list stays empty, NULL stays null), and in the history.
      expect((await asToken(manager).get(`/api-keys/${none.id}`)).body.data.locations).toEqual([]);
      expect((await asToken(manager).get(`/api-keys/${all.id}`)).body.data.locations).toBeNull();
      const listed = (await asToken(manager).get('/api-keys?name=Dhaka%20depot')).body.data.items as ApiKey[];
      expect(listed.map((key) => key.locations)).toEqual([[dhaka.id]]);
      const history = (await asToken(manager).get(`/api-keys/${dhakaKey.id}/history`)).body.data.items;
      expect(history[0].changes).toContainEqual({ field: 'locations', from: null, to: [dhaka.id] });

      // Used on GET /sales-orders: Dhaka's key sees Dhaka's order only; [] sees nothing, never all.
      const dhakaSees = await ordersSeenBy(dhakaKey.secret);
      expect(dhakaSees.ids).toContain(inDhaka);
      expect(dhakaSees.ids).not.toContain(inCtg);
      expect((await asKey(dhakaKey.secret).get(`/sales-orders/${inCtg}`)).status).toBe(404);
      expect(await ordersSeenBy(none.secret)).toEqual({ total: 0, ids: [] });
      const allSees = await ordersSeenBy(all.secret);
      expect(allSees.ids).toEqual(expect.arrayContaining([inDhaka, inCtg]));
      expect((await ordersSeenBy(both.secret)).ids).toEqual(allSees.ids);
    });

    it('refuses a location that does not exist (422 unknown_location) and makes nothing', async () => {
      const before = await keyCount();
      const response = await asToken(manager).post('/api-keys', {
        name: 'typo',
        permissions: [Permission.read],
        locations: [locations().dhaka.code, 'NOPE', 999_999],
      });
      expect(response.status).toBe(422);
      expect(response.body.error.details).toEqual([
        { path: 'locations.1', message: expect.stringContaining('NOPE'), code: 'unknown_location' },
        { path: 'locations.2', message: expect.stringContaining('999999'), code: 'unknown_location' },
      ]);
      expect(await keyCount()).toBe(before);
    });

    it('no escalation by location: a caller scoped to Dhaka makes only keys inside Dhaka (403 location_not_held)', async () => {
      const { dhaka, chattogram } = locations();
      const dhakaAdmin = await scopedManager([dhaka.code]);
      const before = await keyCount();
      const attempts: { body: object; paths: string[] }[] = [
        { body: {}, paths: ['locations'] },
        { body: { locations: null }, paths: ['locations'] },
        { body: { locations: [chattogram.code] }, paths: ['locations.0'] },
        { body: { locations: [dhaka.code, chattogram.id] }, paths: ['locations.1'] },
        // A location that does not exist is, to a scoped caller, just one it does not hold.
        { body: { locations: ['NOPE'] }, paths: ['locations.0'] },
      ];
      for (const { body, paths } of attempts) {
        const response = await asToken(dhakaAdmin).post('/api-keys', {
          name: 'grab',
          permissions: [Permission.read],
          ...body,
        });
        expect(response.status, JSON.stringify(body)).toBe(403);
        expect(response.body.error.details, JSON.stringify(body)).toEqual(
          paths.map((path) => ({ path, message: expect.any(String), code: 'location_not_held' })),
        );
      }
      // Permission and location refusals together.
      const both = await asToken(dhakaAdmin).post('/api-keys', {
        name: 'grab',
        permissions: [Permission.delete],
        locations: [chattogram.code],
      });
      expect(both.status).toBe(403);
      expect(both.body.error.details.map((detail: { code: string }) => detail.code)).toEqual([
        'permission_not_held',
        'location_not_held',
      ]);
      expect(await keyCount()).toBe(before);

      const inside = await create(
        { name: 'dhaka child', permissions: [Permission.read], locations: [dhaka.id] },
        dhakaAdmin,
      );
      expect(inside).toMatchObject({ locations: [dhaka.id], created_by: 'dhaka-admin' });
      expect(
        (await create({ name: 'sees none', permissions: [Permission.read], locations: [] }, dhakaAdmin)).locations,
      ).toEqual([]);
      // A key scoped to Dhaka with api_keys.manage is bound the same way.
      const keyAdmin = await create(
        { name: 'dhaka key admin', permissions: [Permission.apiKeysManage, Permission.read], locations: [dhaka.code] },
        dhakaAdmin,
      );
      expect(
        (await asKey(keyAdmin.secret).post('/api-keys', { name: 'x', permissions: [Permission.read] })).status,
      ).toBe(403);
      expect(
        (
          await asKey(keyAdmin.secret).post('/api-keys', {
            name: 'x',
            permissions: [Permission.read],
            locations: [dhaka.id],
          })
        ).status,
      ).toBe(201);
    });

    it('a scoped caller sees, changes and rotates only keys inside its locations; others read as missing', async () => {
      const { dhaka, chattogram } = locations();
      const tag = `scoped-${Date.now()}`;
      const make = (suffix: string, locationIds: number[] | null) =>
        create({ name: `${tag} ${suffix}`, permissions: [Permission.read], locations: locationIds });
      const ctg = await make('ctg', [chattogram.id]);
      const every = await make('every', null);
      const wider = await make('wider', [dhaka.id, chattogram.id]);
      const inside = await make('inside', [dhaka.id]);
      const none = await make('none', []);
      const dhakaAdmin = await scopedManager([dhaka.id]);
      const as = asToken(dhakaAdmin);

      const listed = (await as.get(`/api-keys?name=${tag}`)).body.data;
      expect(listed.items.map((key: ApiKey) => key.id)).toEqual([none.id, inside.id]);
      expect(listed.next_cursor).toBeNull();
      // Paging does not reach past the scope either.
      const paged = (await as.get(`/api-keys?name=${tag}&limit=1`)).body.data;
      const rest = (await as.get(`/api-keys?name=${tag}&limit=5&cursor=${paged.next_cursor}`)).body.data;
      expect([...paged.items, ...rest.items].map((key: ApiKey) => key.id)).toEqual([none.id, inside.id]);

      for (const hidden of [ctg, every, wider]) {
        const label = `key ${hidden.name}`;
        const refusals = [
          await as.get(`/api-keys/${hidden.id}`),
          await as.get(`/api-keys/${hidden.id}/history`),
          await as.patch(`/api-keys/${hidden.id}`, { name: 'taken' }),
          await as.post(`/api-keys/${hidden.id}/revoke`),
          // Escalation by rotation: a successor of a key wider than the caller is never made.
          await as.post(`/api-keys/${hidden.id}/rotate`, { expire_current_in_seconds: 0 }),
        ];
        for (const response of refusals) {
          expect(response.status, label).toBe(404);
          expect(response.body.error.message, label).toBe(`API key ${hidden.id} not found`);
        }
        const unchanged = (await asToken(manager).get(`/api-keys/${hidden.id}`)).body.data as ApiKey;
        expect(unchanged, label).toMatchObject({ name: hidden.name, active: true, revoked_at: null, expires_at: null });
        expect(await useKey(hidden.secret), label).toBe(200);
      }
      expect(
        (await asToken(manager).get(`/api-keys?name=${tag}`)).body.data.items.filter(
          (key: ApiKey) => key.rotated_from_id !== null,
        ),
      ).toEqual([]);
      expect((await as.get(`/api-keys/${inside.id}`)).status).toBe(200);
      expect((await as.get(`/api-keys/${none.id}`)).status).toBe(200);
    });

    it('rotates a scoped key into a successor with the same locations', async () => {
      const { dhaka } = locations();
      const dhakaAdmin = await scopedManager([dhaka.code]);
      const current = await create(
        { name: 'depot tablet', permissions: [Permission.read], locations: [dhaka.id] },
        dhakaAdmin,
      );
      const response = await asToken(dhakaAdmin).post(`/api-keys/${current.id}/rotate`);
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      const successor = response.body.data as CreatedApiKey;
      expect(successor).toMatchObject({
        locations: [dhaka.id],
        rotated_from_id: current.id,
        created_by: 'dhaka-admin',
      });
      const history = (await asToken(manager).get(`/api-keys/${successor.id}/history`)).body.data.items;
      expect(history[0].changes).toContainEqual({ field: 'locations', from: null, to: [dhaka.id] });
      // The successor is as scoped as its predecessor when used.
      const seen = await asKey(successor.secret).get('/sales-orders?include_total=true');
      expect(seen.status).toBe(200);
      for (const item of seen.body.data.items as { location_id: number }[]) expect(item.location_id).toBe(dhaka.id);
      // A rotation by an unscoped manager keeps them too, and an empty list stays empty.
      const none = await create({ name: 'blind', permissions: [Permission.read], locations: [] });
      const rotated = await asToken(manager).post(`/api-keys/${none.id}/rotate`);
      expect(rotated.body.data.locations).toEqual([]);
      const every = await create({ name: 'everywhere', permissions: [Permission.read] });
      expect((await asToken(manager).post(`/api-keys/${every.id}/rotate`)).body.data.locations).toBeNull();
    });
  });
});
