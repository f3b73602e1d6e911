/**
 * `pnpm order-entry`: prints (and, at a terminal, opens) the link that signs a browser in to
 * the order entry page of a running `pnpm start`.
 *
 * - Embedded database: the demo session `pnpm start` keeps in DATA_DIR/demo-session (the
 *   database itself is busy with the running service, so nothing is written here).
 * - DATABASE_URL: a new host session (as `pnpm host-session create` writes it) for `--user`
 *   (default demo) with every permission, for 8 hours; the service needs ORDER_ENTRY_PAGE=true
 *   and ORDER_ENTRY_SIGN_IN=true for the link to work.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

import { sessionRepository } from '../auth/session-repository.js';
import { sha256Hex } from '../auth/token-hash.js';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { demoSessionFile, signInUrl } from '../db/seed/demo-session.js';
import { runCli } from './run-cli.js';

const openInBrowser = (url: string) => {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  const child = spawn(command, [url], { detached: true, stdio: 'ignore' });
  child.on('error', () => {}); // no browser here (a server): the printed link is enough
  child.unref();
};

runCli(async () => {
  const { values } = parseArgs({ options: { user: { type: 'string' }, 'no-open': { type: 'boolean' } } });
  const config = loadConfig();
  if (!config.orderEntry.page) {
    console.error(
      'The order entry page is off: set ORDER_ENTRY_PAGE=true (and ORDER_ENTRY_SIGN_IN=true) for pnpm start.',
    );
    return 1;
  }
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
  let token: string;
  if (config.database.url === undefined) {
    const file = demoSessionFile(config.database.dataDir);
    token = file ? (await readFile(file, 'utf8').catch(() => '')).trim() : '';
    if (token === '') {
      console.error('No demo session yet: start the service first (pnpm start), then run pnpm order-entry again.');
      return 1;
    }
  } else {
    token = randomBytes(32).toString('base64url');
    const database = await openDatabase(config);
    try {
      await sessionRepository.insert(database.prisma, {
        tokenDigest: sha256Hex(token),
        userId: values.user ?? 'demo',
        permissions: ['*'],
        hours: 8,
      });
    } finally {
      await database.close();
    }
  }
  const url = signInUrl(origin, token);
  if (!config.orderEntry.signIn) {
    console.log(
      `The sign-in link is off (ORDER_ENTRY_SIGN_IN): set the cookie ${config.auth.sessionCookieName}=${token}`,
    );
    console.log(`for ${origin} yourself, then open ${origin}/order-entry/`);
    return 0;
  }
  console.log(
    `Open the order entry page, signed in with a host session (the link sets the ${config.auth.sessionCookieName} cookie):`,
  );
  console.log('');
  console.log(`  ${url}`);
  console.log('');
  if (process.stdout.isTTY && !values['no-open']) openInBrowser(url);
  return 0;
});
