import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

import { sessionRepository } from '../auth/session-repository.js';
import { sha256Hex } from '../auth/token-hash.js';
import { demoSessionFile, signInUrl } from '../demo/demo-session.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { AppConfig } from '../startup/config.js';
import type { CommandOutput } from './api-key-command.js';
import { localOrigin } from './local-service.js';

/** A session made by the command on a PostgreSQL server lasts a working day. */
const SESSION_HOURS = 8;

export const ORDER_ENTRY_USAGE = `usage:
  order-entry [--user <user id>] [--no-open]

Prints (and at a terminal opens) the link that signs a browser in to the order entry page of a
running service. Embedded database: the demo session pnpm start keeps in DATA_DIR/demo-session.
DATABASE_URL: a new ${SESSION_HOURS}-hour host session for --user (default demo) with every permission.`;

/**
 * `pnpm order-entry`. On the embedded database it only reads DATA_DIR/demo-session (the running
 * service holds the database: one process at a time); with DATABASE_URL it writes a session as
 * `pnpm host-session` does. Returns the exit code: 0 done, 1 nothing to sign in with, 2 usage.
 */
export const runOrderEntryCommand = async (
  argv: string[],
  config: AppConfig,
  { out, err }: CommandOutput,
  withDatabase: (use: (prisma: PrismaClient) => Promise<void>) => Promise<void>,
  open: (url: string) => void,
): Promise<number> => {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { user: { type: 'string' }, 'no-open': { type: 'boolean' } } }));
  } catch (error) {
    err(`${(error as Error).message}\n${ORDER_ENTRY_USAGE}`);
    return 2;
  }
  if (!config.orderEntry.page) {
    err('The order entry page is off: set ORDER_ENTRY_PAGE=true (and ORDER_ENTRY_SIGN_IN=true) for pnpm start.');
    return 1;
  }
  const origin = localOrigin(config);
  let token: string;
  if (config.database.url === undefined) {
    const file = demoSessionFile(config.database.dataDir);
    token = file ? (await readFile(file, 'utf8').catch(() => '')).trim() : '';
    if (token === '') {
      err('No demo session yet: start the service first (pnpm start), then run pnpm order-entry again.');
      return 1;
    }
  } else {
    token = randomBytes(32).toString('base64url');
    const session = {
      tokenDigest: sha256Hex(token),
      userId: values.user ?? 'demo',
      permissions: ['*'],
      locations: null,
      hours: SESSION_HOURS,
    };
    await withDatabase((prisma) => sessionRepository.insert(prisma, session));
  }
  const cookie = config.auth.sessionCookieName;
  if (!config.orderEntry.signIn) {
    out(`The sign-in link is off (ORDER_ENTRY_SIGN_IN): set the cookie ${cookie}=${token}`);
    out(`for ${origin} yourself, then open ${origin}/order-entry/`);
    return 0;
  }
  const url = signInUrl(origin, token);
  out(`Open the order entry page, signed in with a host session (the link sets the ${cookie} cookie):`);
  out('');
  out(`  ${url}`);
  out('');
  if (!values['no-open']) open(url);
  return 0;
};
