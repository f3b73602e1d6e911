import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { CSV_COLUMNS } from '../src/imports/import-file.js';
import { nodeArgumentsOf, serverRoot } from './support/server-process.js';

/**
 * `--help` of every CLI, in a process of its own as an operator runs it: the usage on stdout and
 * exit 0, before the command reads its configuration or opens a database. The database it would
 * open is one it cannot: an embedded one in a DATA_DIR that does not exist (opening it would make
 * the folder) and, for the commands that take DATABASE_URL, a server nothing listens on.
 */
type Run = { code: number; stdout: string; stderr: string };

const folder = mkdtempSync(path.join(tmpdir(), 'cli-help-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const run = (argv: string[], env: Record<string, string>): Promise<Run> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      argv,
      // A LOG_LEVEL the configuration refuses: a command that read it would fail.
      { cwd: serverRoot, env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'loud', ...env }, timeout: 120_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });

const COMMANDS = [
  { entry: 'import', says: 'import FILE' },
  { entry: 'api-key', says: 'api-key create --name' },
  { entry: 'host-session', says: 'host-session create --user' },
  { entry: 'order-entry', says: 'order-entry [--user' },
  { entry: 'migrate', says: 'db:migrate' },
  { entry: 'seed', says: 'db:seed' },
];

describe('every CLI prints its usage for --help, touching no database', () => {
  for (const { entry, says } of COMMANDS) {
    it(`${entry} --help`, async () => {
      const dataDir = path.join(folder, `${entry}-data`);
      for (const [flag, env] of [
        ['--help', { DATA_DIR: dataDir }],
        ['-h', { DATA_DIR: dataDir, DATABASE_URL: 'postgresql://nobody@127.0.0.1:9/none' }],
      ] as const) {
        const result = await run([...nodeArgumentsOf(`cli/${entry}`), flag], env);
        expect(result, flag).toEqual({ code: 0, stdout: expect.stringMatching(/^usage:\n/), stderr: '' });
        expect(result.stdout).toContain(says);
      }
      expect(existsSync(dataDir)).toBe(false);
    });
  }

  it("import's usage lists every column of the CSV", async () => {
    const { stdout } = await run([...nodeArgumentsOf('cli/import'), '--help'], {});
    for (const column of CSV_COLUMNS) expect(stdout).toMatch(new RegExp(`\\b${column}\\b`));
    expect(stdout).toContain('Exit status: 0 every order created, 3 the import completed with failed orders');
  });

  it('a command that takes no arguments refuses one with its usage (exit 2), opening nothing', async () => {
    const result = await run([...nodeArgumentsOf('cli/migrate'), 'now'], { DATA_DIR: path.join(folder, 'x') });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^Unexpected: now\nusage:/);
    expect(existsSync(path.join(folder, 'x'))).toBe(false);
  });

  it('the launcher (pnpm sales-order) lists its commands for --help, and refuses an unknown one', async () => {
    const launcher = path.join(serverRoot, 'bin', 'sales-order.mjs');
    const help = await run([launcher, '--help'], {});
    expect(help.code).toBe(0);
    for (const { entry } of COMMANDS) expect(help.stdout).toMatch(new RegExp(`^  ${entry} +\\S`, 'm'));
    const unknown = await run([launcher, 'exports'], {});
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^Unknown command "exports"\.\nusage:/);
  });
});
