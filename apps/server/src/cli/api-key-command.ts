import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';

import { type ApiKey, CreateApiKeyBodySchema } from '@sales-order/contract';

import { createApiKeyManagement } from '../api-keys/api-key-management.js';
import { operator as operatorNamed } from '../api-keys/key-manager.js';
import { KNOWN_PERMISSIONS } from '../auth/access-context.js';
import { prefixNamedBy } from '../auth/api-keys.js';
import { transactionPort } from '../db/transactions.js';
import { DomainError } from '../errors/domain-error.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { addDays } from '../shared/calendar.js';

export const API_KEY_USAGE = `usage:
  api-key create --name <name> --permissions <p1,p2,...> [--locations <code-or-id,...>] [--expires-in-days <n>]
  api-key revoke <prefix>
  api-key list
permissions: ${KNOWN_PERMISSIONS.join(', ')} (* is all)
locations: location codes or ids the key is limited to; without --locations the key reaches every location,
  with --locations "" none
The first key of an install; manage keys after it over HTTP (/api-keys, docs/authentication.md).`;

/** `--permissions a, b,c` (or `--locations`) as the list `['a', 'b', 'c']`. */
export const permissionList = (text: string): string[] =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

export type CommandOutput = {
  out: (line: string) => void;
  err: (line: string) => void;
};

const describe = (key: ApiKey): string =>
  [
    key.prefix,
    `name=${JSON.stringify(key.name)}`,
    `permissions=${key.permissions.join(',')}`,
    `locations=${key.locations === null ? 'all' : key.locations.length === 0 ? 'none' : key.locations.join(',')}`,
    `created=${key.created_at}`,
    `expires=${key.expires_at ?? 'never'}`,
    key.revoked_at ? `revoked=${key.revoked_at}` : 'active',
    `last_used=${key.last_used_at ?? 'never'}`,
  ].join('  ');

const parseDays = (text: string | undefined): number | null | undefined => {
  if (text === undefined) return null;
  const days = Number(text);
  return Number.isInteger(days) && days >= 1 && days <= 3650 ? days : undefined;
};

/** The name of whoever runs the command, recorded as the keys' maker (`cli:<user>`). */
const shellUser = () => {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
};

/**
 * `pnpm api-key ...`: creates (and prints, this once), revokes and lists API keys, through the
 * same use cases and rules as the HTTP routes (the operator at the shell holds every
 * permission; changes are in each key's history as `cli:<user>`). Returns the process exit
 * code: 0 done, 1 refused, 2 usage error.
 */
export const runApiKeyCommand = async (
  argv: string[],
  prisma: PrismaClient,
  { out, err }: CommandOutput,
  now: () => Date = () => new Date(),
): Promise<number> => {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        name: { type: 'string' },
        permissions: { type: 'string' },
        locations: { type: 'string' },
        'expires-in-days': { type: 'string' },
      },
    });
  } catch (error) {
    err(`${(error as Error).message}\n${API_KEY_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  const apiKeys = createApiKeyManagement({ transactions: transactionPort(prisma), now });
  const operator = operatorNamed(`cli:${shellUser()}`);

  if (command === 'create' && rest.length === 0 && values.name !== undefined && values.permissions !== undefined) {
    const days = parseDays(values['expires-in-days']);
    if (days === undefined) {
      err(`--expires-in-days must be a whole number of days from 1 to 3650\n${API_KEY_USAGE}`);
      return 2;
    }
    const permissions = permissionList(values.permissions);
    const unknown = permissions.filter((permission) => !KNOWN_PERMISSIONS.includes(permission));
    if (unknown.length > 0) {
      err(unknown.map((name) => `unknown permission "${name}"; known: ${KNOWN_PERMISSIONS.join(', ')}`).join('\n'));
      return 1;
    }
    // The body the HTTP route takes, checked by the same schema.
    const body = CreateApiKeyBodySchema.safeParse({
      name: values.name,
      permissions,
      locations: values.locations === undefined ? null : permissionList(values.locations),
      expires_at: days === null ? null : addDays(now(), days).toISOString(),
    });
    if (!body.success) {
      err(body.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`).join('\n'));
      return 1;
    }
    try {
      const { secret, ...created } = await apiKeys.create(body.data, operator);
      out(`Created API key ${describe(created)}`);
      out('');
      out(`  ${secret}`);
      out('');
      out('This is the only time the key is shown: store it now. Send it as');
      out(`  Authorization: ApiKey ${secret}`);
      return 0;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      err([error.message, ...error.details.map((detail) => `  ${detail.path}: ${detail.message}`)].join('\n'));
      return 1;
    }
  }
  if (command === 'revoke' && rest.length === 1) {
    const prefix = prefixNamedBy(rest[0]!);
    const id = prefix === undefined ? null : await apiKeys.idOfPrefix(prefix);
    if (id === null) {
      err(`No API key with prefix ${rest[0]}`);
      return 1;
    }
    try {
      await apiKeys.revoke(id, { revoke_in_seconds: 0, confirm_self: false }, operator);
      out(`Revoked ${prefix}`);
    } catch (error) {
      if (!(error instanceof DomainError) || error.kind !== 'conflict') throw error;
      out(`${prefix} was already revoked`);
    }
    return 0;
  }
  if (command === 'list' && rest.length === 0) {
    let count = 0;
    let cursor: number | undefined;
    do {
      const page = await apiKeys.list({ limit: 200, cursor }, operator);
      for (const key of page.items) out(describe(key));
      count += page.items.length;
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
    if (count === 0) out('No API keys.');
    return 0;
  }
  err(API_KEY_USAGE);
  return 2;
};
