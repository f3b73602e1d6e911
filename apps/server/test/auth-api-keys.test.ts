import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';

import { Permission } from '@sales-order/contract';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createApiKeyManagement } from '../src/api-keys/api-key-management.js';
import { operator } from '../src/api-keys/key-manager.js';
import { LAST_USED_RESOLUTION_MS } from '../src/auth/api-keys.js';
import { runApiKeyCommand } from '../src/cli/api-key-command.js';
import { transactionPort } from '../src/db/transactions.js';
import { createApiKey } from './support/credentials.js';
import { answeredOtherwiseAfter, callUntil, eventually } from './support/eventually.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const PATH = '/sales-orders/calculate-totals';
const BODY = { details: [{ quantity: 1, rate: 7 }] };
const KEY_SHAPE = /^sok_[a-z2-7]{8}_[A-Za-z0-9_-]{43}$/;

const callWith = (server: TestServer, key: string) =>
  request(server.api).post(PATH).set('Authorization', `ApiKey ${key}`).send(BODY);

const expectInvalidKey = async (server: TestServer, key: string) => {
  const response = await callWith(server, key);
  expect(response.status).toBe(401);
  expect(response.headers['www-authenticate']).toContain('ApiKey');
  expect(response.body.error).toEqual({
    message: 'The API key is not valid',
    code: 401,
    details: [{ path: '', message: 'The API key is not valid', code: 'invalid_api_key' }],
  });
};

/** Runs the command as the CLI does, capturing what it prints. */
const runCli = async (server: TestServer, ...argv: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runApiKeyCommand(argv, server.database.prisma, {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
};

/**
 * A revocation reaches the credential cache through NOTIFY: no use sent 8 s after it (called once
 * it is committed) is accepted, under the 10 s TTL a missed notice would take. Judged by when each
 * use was sent, so a loaded machine's slow answers do not count against it.
 */
const expectRefusedSoon = async (server: TestServer, key: string) => {
  const revoked = Date.now();
  const uses = await callUntil(async () => (await callWith(server, key)).status, 401);
  expect(answeredOtherwiseAfter(uses, revoked, 8_000)).toEqual([]);
  await expectInvalidKey(server, key);
};

const printedKey = (output: string) => output.match(/sok_[a-z2-7]{8}_[A-Za-z0-9_-]{43}/)?.[0];

describe('API keys', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  it('authenticates a key and keeps only its hash and visible prefix', async () => {
    const { key, summary } = await createApiKey(server.database.prisma, [Permission.read], { name: 'erp sync' });
    expect(key).toMatch(KEY_SHAPE);
    expect(summary.prefix).toBe(key.slice(0, 12));

    const response = await callWith(server, key);
    expect(response.status).toBe(200);
    expect(response.body.data.grand_total).toBe(7);

    const row = await server.database.prisma.apiKey.findUniqueOrThrow({ where: { prefix: summary.prefix } });
    expect(row.keyHash).toBe(createHash('sha256').update(key).digest('hex'));
    // Nothing stored holds the secret part of the key.
    const secret = key.slice(13);
    expect(JSON.stringify(row, (_name, value) => (typeof value === 'bigint' ? String(value) : value))).not.toContain(
      secret,
    );
    expect(row.name).toBe('erp sync');
    expect(row.permissions).toEqual([Permission.read]);
  });

  it('refuses an unknown key, a key with a known prefix but another secret, and keys of the wrong shape', async () => {
    const { key } = await createApiKey(server.database.prisma, [Permission.all]);
    await expectInvalidKey(server, `${key.slice(0, 13)}${'A'.repeat(43)}`);
    await expectInvalidKey(server, `sok_aaaaaaaa_${'B'.repeat(43)}`);
    await expectInvalidKey(server, key.slice(0, -1));
    await expectInvalidKey(server, 'not-a-key');
  });

  it('refuses a revoked key', async () => {
    const apiKeys = createApiKeyManagement({ transactions: transactionPort(server.database.prisma) });
    const { key, summary } = await createApiKey(server.database.prisma, [Permission.read]);
    const revoke = () => apiKeys.revoke(summary.id, { revoke_in_seconds: 0, confirm_self: false }, operator('test'));
    expect((await callWith(server, key)).status).toBe(200);
    expect((await revoke()).active).toBe(false);
    await expectRefusedSoon(server, key);
    await expect(revoke()).rejects.toMatchObject({ kind: 'conflict' });
  });

  it('refuses an expired key', async () => {
    const { key, summary } = await createApiKey(server.database.prisma, [Permission.read], {
      expiresAt: new Date(Date.now() + 60_000),
    });
    expect((await callWith(server, key)).status).toBe(200);
    await server.database.prisma.apiKey.update({
      where: { prefix: summary.prefix },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    await expectRefusedSoon(server, key);
  });

  it('records when a key was last used, off the request path and at most once a minute', async () => {
    const { prisma } = server.database;
    const { key, summary } = await createApiKey(prisma, [Permission.read]);
    const lastUsed = async () =>
      (await prisma.apiKey.findUniqueOrThrow({ where: { prefix: summary.prefix } })).lastUsedAt;
    expect(await lastUsed()).toBeNull();

    const before = Date.now();
    await callWith(server, key).expect(200);
    await eventually(async () => (await lastUsed()) !== null, 60_000);
    const first = await lastUsed();
    expect(first!.getTime()).toBeGreaterThanOrEqual(before - 5);
    expect(first!.getTime()).toBeLessThanOrEqual(Date.now());

    // A second use within LAST_USED_RESOLUTION_MS is not written, even after the next flush: a
    // later use of a fresh key is the marker (a flush writes every use noted before it).
    await callWith(server, key).expect(200);
    const { key: later, summary: laterSummary } = await createApiKey(prisma, [Permission.read]);
    await callWith(server, later).expect(200);
    await eventually(
      async () =>
        (await prisma.apiKey.findUniqueOrThrow({ where: { prefix: laterSummary.prefix } })).lastUsedAt !== null,
      60_000,
    );
    expect(await lastUsed()).toEqual(first);
    expect(Date.now() - first!.getTime()).toBeLessThan(LAST_USED_RESOLUTION_MS);
    // A use after the resolution is written again: test/auth-credential-cache.test.ts.
  });

  it('CLI: creates a key that works, prints it once, lists it without the key, and revokes it', async () => {
    const created = await runCli(
      server,
      'create',
      '--name',
      'warehouse robot',
      '--permissions',
      'sales_orders.read,sales_orders.create',
      '--expires-in-days',
      '30',
    );
    expect(created.code).toBe(0);
    const key = printedKey(created.out);
    expect(key).toMatch(KEY_SHAPE);
    expect(created.out).toContain(`Authorization: ApiKey ${key}`);
    expect(created.out).toContain('permissions=sales_orders.read,sales_orders.create');
    expect((await callWith(server, key!)).status).toBe(200);

    const row = await server.database.prisma.apiKey.findUniqueOrThrow({ where: { prefix: key!.slice(0, 12) } });
    const days = (row.expiresAt!.getTime() - row.createdAt.getTime()) / 86_400_000;
    expect(days).toBeGreaterThan(29.99);
    expect(days).toBeLessThan(30.01);

    const listed = await runCli(server, 'list');
    expect(listed.code).toBe(0);
    expect(listed.out).toContain(`${key!.slice(0, 12)}  name="warehouse robot"`);
    expect(listed.out).not.toContain(key!.slice(13));

    const revoked = await runCli(server, 'revoke', key!.slice(0, 12));
    expect(revoked).toMatchObject({ code: 0, out: `Revoked ${key!.slice(0, 12)}` });
    await expectRefusedSoon(server, key!);
    expect((await runCli(server, 'list')).out).toMatch(new RegExp(`${key!.slice(0, 12)}.*revoked=`));
  });

  it('CLI: --locations limits the key (codes or ids, shown in the listing); an unknown code is refused', async () => {
    const prisma = server.database.prisma;
    const bogura = await prisma.location.create({ data: { code: 'BOG', name: 'Bogura' } });
    const khulna = await prisma.location.create({ data: { code: 'KHL', name: 'Khulna' } });
    const created = await runCli(
      server,
      'create',
      '--name',
      'bogura app',
      '--permissions',
      'sales_orders.read',
      '--locations',
      `bog, ${khulna.id}`,
    );
    expect(created.code, created.err).toBe(0);
    const expected = [bogura.id, khulna.id].sort((a, b) => a - b).join(',');
    expect(created.out).toContain(`locations=${expected}`);
    const key = printedKey(created.out)!;
    const [row] = await prisma.$queryRaw<{ locations: number[] | null }[]>`
      SELECT locations FROM api_keys WHERE prefix = ${key.slice(0, 12)}`;
    expect(row!.locations).toEqual(expected.split(',').map(Number));

    const none = await runCli(
      server,
      'create',
      '--name',
      'blind',
      '--permissions',
      'sales_orders.read',
      '--locations',
      '',
    );
    expect(none.code, none.err).toBe(0);
    expect(none.out).toContain('locations=none');
    const listed = (await runCli(server, 'list')).out;
    expect(listed).toMatch(new RegExp(`${key.slice(0, 12)}.*locations=${expected}`));
    expect(listed).toMatch(/name="blind".*locations=none/);
    expect(listed).toMatch(/locations=all/);

    const before = await prisma.apiKey.count();
    const unknown = await runCli(server, 'create', '--name', 'x', '--permissions', '*', '--locations', 'BOG,NOPE');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('locations.1');
    expect(unknown.err).toContain('NOPE');
    expect(await prisma.apiKey.count()).toBe(before);
  });

  it('CLI: refuses unknown permissions, a bad expiry, unknown prefixes and bad usage', async () => {
    const before = await server.database.prisma.apiKey.count();
    const unknown = await runCli(
      server,
      'create',
      '--name',
      'x',
      '--permissions',
      'sales_orders.read,orders.everything',
    );
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('unknown permission "orders.everything"');
    expect((await runCli(server, 'create', '--name', 'x', '--permissions', '*', '--expires-in-days', '0')).code).toBe(
      2,
    );
    expect((await runCli(server, 'create', '--name', 'x')).code).toBe(2);
    expect((await runCli(server, 'create', '--name', 'x', '--permissions', '*', '--bogus')).code).toBe(2);
    expect(await server.database.prisma.apiKey.count()).toBe(before);

    const missing = await runCli(server, 'revoke', 'sok_aaaaaaaa');
    expect(missing).toMatchObject({ code: 1, err: 'No API key with prefix sok_aaaaaaaa' });
    expect((await runCli(server)).code).toBe(2);
  });
});

// The CLI as an operator runs it, in its own process against the database server. Skipped on
// the embedded database: a test's in-memory database cannot be opened from another process.
describe.skipIf(!process.env.TEST_DATABASE_URL)('API key CLI process (skipped without TEST_DATABASE_URL)', () => {
  let server: TestServer;
  const serverRoot = path.resolve(import.meta.dirname, '..');

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  const cli = async (...argv: string[]) => {
    const databaseUrl = (await server.database.prisma.$queryRaw<{ db: string }[]>`SELECT current_database() AS db`)[0]!
      .db;
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = `/${databaseUrl}`;
    return promisify(execFile)(path.join(serverRoot, 'node_modules/.bin/tsx'), ['src/cli/api-key.ts', ...argv], {
      cwd: serverRoot,
      env: { ...process.env, DATABASE_URL: url.toString(), LOG_LEVEL: 'silent' },
    });
  };

  it('creates a working key and revokes it', async () => {
    const created = await cli('create', '--name', 'cli process', '--permissions', '*');
    const key = printedKey(created.stdout)!;
    expect(key).toMatch(KEY_SHAPE);
    expect((await callWith(server, key)).status).toBe(200);

    const revoked = await cli('revoke', key.slice(0, 12));
    expect(revoked.stdout.trim()).toBe(`Revoked ${key.slice(0, 12)}`);
    await expectRefusedSoon(server, key);
  });
});
