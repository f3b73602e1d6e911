import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  /** Connection string of the loopback socket that serves the embedded database. */
  url: string;
  stop(): Promise<void>;
}

/**
 * PGlite (PostgreSQL compiled to WASM) persisted under `dataDir`, or in memory for
 * `memory://`, served on a loopback port so that the same pg + Prisma code path serves it and a
 * real server alike. PGlite is a single session: the application uses one pooled connection
 * (the socket server keeps a transaction's queries together); the second slot lets the
 * migration connection close while the application's opens.
 */
export const startEmbeddedPostgres = async (dataDir: string): Promise<EmbeddedPostgres> => {
  let location = dataDir;
  if (dataDir !== 'memory://') {
    location = path.resolve(dataDir, 'pgdata');
    await mkdir(location, { recursive: true });
  }
  const db = await PGlite.create(location);
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 2 });
  await server.start();
  return {
    url: `postgresql://postgres@${server.getServerConn()}/postgres?sslmode=disable`,
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
};
