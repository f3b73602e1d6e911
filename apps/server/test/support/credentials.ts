import { createHash, randomBytes } from 'node:crypto';

import type { Permission } from '@sales-order/contract';

import { createApiKeyManagement } from '../../src/api-keys/api-key-management.js';
import { operator } from '../../src/api-keys/key-manager.js';
import { transactionPort } from '../../src/db/transactions.js';
import type { PrismaClient } from '../../src/generated/prisma/client.js';

const DAY_MS = 86_400_000;

/** An API key made by the service itself, as the CLI makes them: the key and its record (`summary`). */
export const createApiKey = async (
  prisma: PrismaClient,
  permissions: string[],
  { name = 'test key', expiresAt = null }: { name?: string; expiresAt?: Date | null } = {},
) => {
  const { secret, ...summary } = await createApiKeyManagement({ transactions: transactionPort(prisma) }).create(
    { name, permissions: permissions as Permission[], expires_at: expiresAt },
    operator('test:setup'),
  );
  return { key: secret, summary };
};

/**
 * A host session written the way the host ERP writes it: a random cookie value, stored as the
 * hex SHA-256 of that value. Returns the cookie header to send.
 */
export const createSession = async (
  prisma: PrismaClient,
  {
    userId = 'erp-user-7',
    permissions = ['*'],
    expiresAt = new Date(Date.now() + DAY_MS),
    revokedAt = null,
    cookieName = 'erp_session',
  }: { userId?: string; permissions?: string[]; expiresAt?: Date; revokedAt?: Date | null; cookieName?: string } = {},
) => {
  const token = randomBytes(24).toString('base64url');
  await prisma.session.create({
    data: { tokenHash: createHash('sha256').update(token).digest('hex'), userId, permissions, expiresAt, revokedAt },
  });
  return { token, cookie: `${cookieName}=${token}`, userId };
};
