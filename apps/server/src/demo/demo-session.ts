import { randomBytes } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { sessionRepository } from '../auth/session-repository.js';
import { sha256Hex } from '../auth/token-hash.js';
import type { PrismaClient } from '../generated/prisma/client.js';

/** The demo user's session lasts the longest a host session CLI may give: 30 days. */
const DEMO_SESSION_HOURS = 720;

/** Where the demo session's value is kept, beside the database it opens (undefined in memory). */
export const demoSessionFile = (dataDir: string) =>
  dataDir === 'memory://' ? undefined : path.resolve(dataDir, 'demo-session');

/**
 * The way into the order entry page on the embedded demo database: a host session for the
 * user `demo` with every permission, written as the host's login would (cli/host-session.ts),
 * kept in DATA_DIR/demo-session (readable only by its owner) and reused while it is live, so
 * that `pnpm order-entry` can print its sign-in link while the service runs (the embedded
 * database takes one process at a time). serve.ts calls this only for the embedded database.
 */
export const ensureDemoSession = async (prisma: PrismaClient, dataDir: string): Promise<string> => {
  const file = demoSessionFile(dataDir);
  if (file) {
    const saved = (await readFile(file, 'utf8').catch(() => '')).trim();
    if (saved !== '' && (await sessionRepository.findLive(prisma, sha256Hex(saved)))) return saved;
  }
  const token = randomBytes(32).toString('base64url');
  await sessionRepository.insert(prisma, {
    tokenDigest: sha256Hex(token),
    userId: 'demo',
    permissions: ['*'],
    hours: DEMO_SESSION_HOURS,
  });
  if (file) {
    await writeFile(file, `${token}\n`, { mode: 0o600 });
    await chmod(file, 0o600);
  }
  return token;
};

/** The address that signs a browser in with a session and opens the page. */
export const signInUrl = (origin: string, token: string) =>
  `${origin}/order-entry/sign-in?session=${encodeURIComponent(token)}`;
