import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';

import { KNOWN_PERMISSIONS, MAX_SUBJECT_LENGTH } from '../auth/access-context.js';
import { sessionRepository } from '../auth/session-repository.js';
import { sha256Hex } from '../auth/token-hash.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { type CommandOutput, permissionList } from './api-key-command.js';

export const HOST_SESSION_USAGE = `usage:
  host-session create --user <user id> --permissions <p1,p2,...> [--locations <code or id,...>] [--hours <n>]
permissions: ${KNOWN_PERMISSIONS.join(', ')} (* is all)
locations: the user sees and acts only in these locations; without --locations, in every one

Stands in for the host ERP's login on a development or demo database: it writes a row to the
sessions table exactly as the host would (the cookie's SHA-256, the user, the permissions and
an expiry computed by the database), and prints the cookie value once.`;

const parseHours = (text: string | undefined): number | undefined => {
  if (text === undefined) return 8;
  return /^[1-9][0-9]{0,3}$/.test(text) && Number(text) <= 720 ? Number(text) : undefined;
};

/** `pnpm host-session create ...`. Returns the exit code: 0 done, 2 usage error. */
export const runHostSessionCommand = async (
  argv: string[],
  prisma: PrismaClient,
  { out, err }: CommandOutput,
  cookieName: string,
): Promise<number> => {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        user: { type: 'string' },
        permissions: { type: 'string' },
        locations: { type: 'string' },
        hours: { type: 'string' },
      },
    });
  } catch (error) {
    err(`${(error as Error).message}\n${HOST_SESSION_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const hours = parseHours(values.hours);
  const permissions = permissionList(values.permissions ?? '');
  const unknown = permissions.filter((permission) => !KNOWN_PERMISSIONS.includes(permission));
  const user = values.user ?? '';
  if (
    positionals.join(' ') !== 'create' ||
    user === '' ||
    user.length > MAX_SUBJECT_LENGTH ||
    permissions.length === 0
  ) {
    err(HOST_SESSION_USAGE);
    return 2;
  }
  if (hours === undefined) {
    err(`--hours must be a whole number of hours from 1 to 720\n${HOST_SESSION_USAGE}`);
    return 2;
  }
  if (unknown.length > 0) {
    err(`unknown permission(s): ${unknown.join(', ')}\n${HOST_SESSION_USAGE}`);
    return 2;
  }
  const token = randomBytes(32).toString('base64url');
  // The expiry is the database's clock, as the host ERP would write it.
  const locations = values.locations === undefined ? null : permissionList(values.locations);
  await sessionRepository.insert(prisma, {
    tokenDigest: sha256Hex(token),
    userId: user,
    permissions,
    locations,
    hours,
  });
  out(`Created a host session for ${user} (${permissions.join(',')}), valid for ${hours} h. Send it as the cookie`);
  out('');
  out(`  ${cookieName}=${token}`);
  out('');
  out('This is the only time the value is shown.');
  return 0;
};
