import { parseArgs } from 'node:util';

import { KNOWN_PERMISSIONS } from '../auth/access-context.js';
import { type ApiKeySummary, createApiKeyService } from '../auth/api-keys.js';
import { DomainError } from '../errors/domain-error.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { addDays } from '../shared/calendar.js';

export const API_KEY_USAGE = `usage:
  api-key create --name <name> --permissions <p1,p2,...> [--locations <code or id,...>] [--expires-in-days <n>]
  api-key revoke <prefix>
  api-key list
permissions: ${KNOWN_PERMISSIONS.join(', ')} (* is all)
locations: the key sees and acts only in these locations; without --locations, in every one`;

/** `--permissions a, b,c` as the list `['a', 'b', 'c']`. */
export const permissionList = (text: string): string[] =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

export type CommandOutput = {
  out: (line: string) => void;
  err: (line: string) => void;
};

const describe = (key: ApiKeySummary): string =>
  [
    key.prefix,
    `name=${JSON.stringify(key.name)}`,
    `permissions=${key.permissions.join(',')}`,
    `locations=${key.locations === null ? 'all' : key.locations.join(',') || 'none'}`,
    `created=${key.createdAt.toISOString()}`,
    `expires=${key.expiresAt?.toISOString() ?? 'never'}`,
    key.revokedAt ? `revoked=${key.revokedAt.toISOString()}` : 'active',
    `last_used=${key.lastUsedAt?.toISOString() ?? 'never'}`,
  ].join('  ');

const parseDays = (text: string | undefined): number | null | undefined => {
  if (text === undefined) return null;
  const days = Number(text);
  return Number.isInteger(days) && days >= 1 && days <= 3650 ? days : undefined;
};

/**
 * `pnpm api-key ...`: creates (and prints, this once), revokes and lists API keys. Returns the
 * process exit code: 0 done, 1 refused, 2 usage error.
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
  const apiKeys = createApiKeyService(prisma, now);

  if (command === 'create' && rest.length === 0 && values.name !== undefined && values.permissions !== undefined) {
    const days = parseDays(values['expires-in-days']);
    if (days === undefined) {
      err(`--expires-in-days must be a whole number of days from 1 to 3650\n${API_KEY_USAGE}`);
      return 2;
    }
    try {
      const { key, summary } = await apiKeys.create({
        name: values.name,
        permissions: permissionList(values.permissions),
        locations: values.locations === undefined ? null : permissionList(values.locations),
        expiresAt: days === null ? null : addDays(now(), days),
      });
      out(`Created API key ${describe(summary)}`);
      out('');
      out(`  ${key}`);
      out('');
      out('This is the only time the key is shown: store it now. Send it as');
      out(`  Authorization: ApiKey ${key}`);
      return 0;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      err([error.message, ...error.details.map((detail) => `  ${detail.path}: ${detail.message}`)].join('\n'));
      return 1;
    }
  }
  if (command === 'revoke' && rest.length === 1) {
    const result = await apiKeys.revoke(rest[0]!);
    if (result === 'unknown') {
      err(`No API key with prefix ${rest[0]}`);
      return 1;
    }
    out(result === 'revoked' ? `Revoked ${rest[0]}` : `${rest[0]} was already revoked`);
    return 0;
  }
  if (command === 'list' && rest.length === 0) {
    const keys = await apiKeys.list();
    if (keys.length === 0) out('No API keys.');
    for (const key of keys) out(describe(key));
    return 0;
  }
  err(API_KEY_USAGE);
  return 2;
};
