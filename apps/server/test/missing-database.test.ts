import { randomBytes } from 'node:crypto';

import { afterAll, describe, expect, inject, it } from 'vitest';

import { adminQuery, databaseUrl } from './support/postgres-server.js';
import { runFailingServerProcess, startServerProcess, stopServerProcess } from './support/server-process.js';

const serverUrl = process.env.TEST_DATABASE_URL;

describe.skipIf(!serverUrl)(
  'a DATABASE_URL naming a database that does not exist (skipped without TEST_DATABASE_URL)',
  () => {
    const prefix = () => inject('templateDatabase')!.replace(/_template$/, '');
    const role = `so_test_nocreate_${randomBytes(4).toString('hex')}`;

    afterAll(async () => {
      if (serverUrl) await adminQuery(serverUrl, `DROP ROLE IF EXISTS ${role}`);
    });

    it(
      'is created when its user may create databases, and the service starts on it',
      { timeout: 300_000 },
      async () => {
        const name = `${prefix()}_created_${randomBytes(4).toString('hex')}`;
        const server = await startServerProcess({ DATABASE_URL: databaseUrl(serverUrl!, name) });
        try {
          const rows = await adminQuery(serverUrl!, `SELECT datname FROM pg_database WHERE datname = '${name}'`);
          expect(rows).toHaveLength(1);
          expect(server.output.some((line) => line.includes(`created the database \\"${name}\\"`))).toBe(true);
        } finally {
          await stopServerProcess(server);
        }
      },
    );

    it(
      'is refused in one plain line naming the database and the command that creates it, when its user may not',
      { timeout: 300_000 },
      async () => {
        await adminQuery(serverUrl!, `CREATE ROLE ${role} LOGIN NOCREATEDB`);
        const name = `${prefix()}_refused_${randomBytes(4).toString('hex')}`;
        const url = new URL(databaseUrl(serverUrl!, name));
        url.username = role;
        const { code, stderr } = await runFailingServerProcess({ DATABASE_URL: url.toString() });
        expect(code).toBe(1);
        const lines = stderr.trim().split('\n');
        expect(lines, stderr).toHaveLength(1);
        expect(lines[0]).toMatch(
          new RegExp(
            `^The database "${name}" named in DATABASE_URL does not exist on .*: create it with  createdb .* ${name}  then start again\\.$`,
          ),
        );
        const rows = await adminQuery(serverUrl!, `SELECT datname FROM pg_database WHERE datname = '${name}'`);
        expect(rows).toHaveLength(0);
      },
    );
  },
);
