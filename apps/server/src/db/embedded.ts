import { mkdir } from 'node:fs/promises';
import path from 'node:path';

import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import lockfile from 'proper-lockfile';

export interface EmbeddedPostgres {
  /** Connection string of the loopback socket that serves the embedded database. */
  url: string;
  stop(): Promise<void>;
}

/** Another process (the service, a CLI) has the embedded database open. */
export class EmbeddedDatabaseBusyError extends Error {
  constructor(dataDir: string) {
    super(
      `The embedded database in ${dataDir} is open in another process (a running service or CLI). ` +
        'Stop that process first, or point DATABASE_URL at a PostgreSQL server to share one database.',
    );
    this.name = 'EmbeddedDatabaseBusyError';
  }
}

/**
 * Only one process may open a data directory: two PGlite instances writing the same files
 * would corrupt them. The lock is a directory beside the data, refreshed while held and
 * considered stale 10 s after its holder died.
 */
const lockDataDirectory = async (location: string, dataDir: string): Promise<() => Promise<void>> => {
  try {
    return await lockfile.lock(location, { lockfilePath: `${location}.lock`, stale: 10_000, update: 2_500 });
  } catch (error) {
    if ((error as { code?: string }).code === 'ELOCKED') throw new EmbeddedDatabaseBusyError(dataDir);
    throw error;
  }
};

/**
 * PGlite (PostgreSQL compiled to WASM) persisted under `dataDir`, or in memory for
 * `memory://`, served on a loopback port so that the same pg + Prisma code path serves it and a
 * real server alike. PGlite is a single session: the application uses one pooled connection
 * (the socket server keeps a transaction's queries together); the second slot lets the
 * migration connection close while the application's opens. Its session runs in UTC, as
 * every connection does (see time-zone.ts).
 */
export const startEmbeddedPostgres = async (dataDir: string): Promise<EmbeddedPostgres> => {
  let location = dataDir;
  let unlock = async () => {};
  if (dataDir !== 'memory://') {
    location = path.resolve(dataDir, 'pgdata');
    await mkdir(location, { recursive: true });
    unlock = await lockDataDirectory(location, dataDir);
  }
  try {
    // pg_trgm backs the order list's substring search (see the migration that creates it).
    const db = await PGlite.create(location, { extensions: { pg_trgm } });
    // PGlite is one backend session and ignores a client's startup options, so the zone is set
    // on that session (a SET outranks the data directory's own configuration).
    await db.exec(`SET TimeZone TO 'UTC'`);
    const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 2 });
    await server.start();
    return {
      url: `postgresql://postgres@${server.getServerConn()}/postgres?sslmode=disable`,
      stop: async () => {
        await server.stop();
        await db.close();
        await unlock();
      },
    };
  } catch (error) {
    await unlock();
    throw error;
  }
};
