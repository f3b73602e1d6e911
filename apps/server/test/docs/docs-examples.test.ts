import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { demoKeyFile } from '../../src/demo/demo-api-key.js';
import { answerDifferences, examplesOf, markdownPages, ROOT, type Step, stepsOf } from '../support/doc-examples.js';
import { PageShell } from '../support/page-shell.js';
import { adminQuery, databaseUrl } from '../support/postgres-server.js';
import { type ServerProcess, startServerProcess, stopServerProcess } from '../support/server-process.js';

/**
 * Every ```sh example of README.md and docs/ runs, page by page in page order, in a shell of the
 * page's own, against one service started as the README says (`pnpm start` runs main.ts:
 * migrations, demo data, the demo key in data/demo-api-key) on a new PostgreSQL database
 * (TEST_DATABASE_URL) or else the embedded one; what each command prints is compared with the
 * answer the page shows (test/support/doc-examples.ts says how). The service and its database are
 * shared by every page, the README first: a reader who tried the README before a page, and the
 * pages before it, so a page that depends on a fresh database fails here. The page's address of
 * the service, 127.0.0.1:3000, is rewritten to the port this run's service listens on. A line
 * `pnpm start` (with its variables) restarts the service with the shell's exported variables,
 * as it would in the reader's terminal; the next page starts on the service as the README
 * starts it. Blocks marked `docs-test: skip` are reported skipped.
 */

const PAGE_ADDRESS = '127.0.0.1:3000';
const START_LINE = /^\s*((?:[A-Z_][A-Z0-9_]*=\S+\s+)*)pnpm start\s*(?:#.*)?$/;

/** The page's steps, with each `pnpm start` line a step of its own. */
const splitAtStarts = (step: Step): (Step & { start?: Record<string, string> })[] => {
  const result: (Step & { start?: Record<string, string> })[] = [];
  let lines: string[] = [];
  let first = step.line;
  step.script.split('\n').forEach((line, index) => {
    const start = START_LINE.exec(line);
    if (!start) {
      if (lines.length === 0) first = step.line + index;
      lines.push(line);
      return;
    }
    if (lines.some((l) => l.trim() !== '')) result.push({ script: lines.join('\n'), line: first });
    lines = [];
    const assignments = Object.fromEntries(
      [...start[1]!.matchAll(/([A-Z_][A-Z0-9_]*)=(\S+)/g)].map((m) => [m[1]!, m[2]!.replace(/^'(.*)'$/, '$1')]),
    );
    result.push({ script: line, line: step.line + index, start: assignments });
  });
  if (lines.some((l) => l.trim() !== '') || step.answer !== undefined) {
    result.push({ script: lines.join('\n'), line: first, answer: step.answer });
  }
  return result;
};

const pages = markdownPages()
  .map((page) => ({ page, examples: examplesOf(page, ['sh']) }))
  .filter(({ examples }) => examples.length > 0);

// The reader's clone (the repository's files, and a data/ directory of this run's own), its
// database and its service, shared by every page.
let dir: string;
let server: ServerProcess | undefined;
let port = 0;
let database: { env: Record<string, string>; drop(): Promise<void> } | undefined;
/** The variables of the service's last start: {} as the README starts it. */
let startedWith: Record<string, string> | undefined;

const start = async (extra: Record<string, string>) => {
  if (server) await stopServerProcess(server);
  server = undefined;
  server = await startServerProcess(
    {
      ...extra,
      ...database!.env,
      DATA_DIR: path.join(dir, 'data'),
      SEED_DEMO_DATA: 'always',
      PORT: String(port),
      // A loaded CI machine: the bounds an operator would raise there, not the answers.
      DATABASE_CONNECT_TIMEOUT_MS: '10000',
      DATABASE_STATEMENT_TIMEOUT_MS: '30000',
      DATABASE_LOCK_TIMEOUT_MS: '10000',
      WEBHOOK_ALLOW_HTTP: extra.WEBHOOK_ALLOW_HTTP ?? 'false',
    },
    () => {},
  );
  port = Number(new URL(server.api).port);
  startedWith = extra;
  // The pages read data/demo-api-key, the embedded database's key file (the README's reader starts
  // on it). On a PostgreSQL server the key is in that database's own file: the reader's link to it.
  const keyFile = demoKeyFile({ dataDir: path.join(dir, 'data'), databaseUrl: database!.env.DATABASE_URL });
  const readersFile = path.join(dir, 'data', 'demo-api-key');
  if (keyFile && keyFile !== readersFile && !existsSync(readersFile)) await symlink(keyFile, readersFile);
};

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'docs-'));
  for (const entry of await readdir(ROOT)) {
    if (entry !== 'data' && entry !== '.git') await symlink(path.join(ROOT, entry), path.join(dir, entry));
  }
  await mkdir(path.join(dir, 'data'));
  const template = inject('templateDatabase');
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (template && serverUrl) {
    // Migrated (a clone of the template), empty: the first start loads the demo data into it.
    const name = template.replace(/_template$/, '_docs');
    await adminQuery(serverUrl, `CREATE DATABASE "${name}" TEMPLATE "${template}"`);
    database = {
      env: { DATABASE_URL: databaseUrl(serverUrl, name) },
      drop: () => adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).then(() => {}),
    };
  } else {
    database = { env: {}, drop: async () => {} };
  }
  await start({});
});

afterAll(async () => {
  if (server) await stopServerProcess(server);
  await database?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe.each(pages)('$page', ({ page, examples }) => {
  const runnable = examples.filter((example) => example.skip === undefined);
  let shell: PageShell;

  beforeAll(async () => {
    if (runnable.length === 0) return;
    // A page before this one restarted the service with variables of its own: back to the README's.
    if (startedWith && Object.keys(startedWith).length > 0) await start({});
    const { DATABASE_URL: _url, REDIS_URL: _redis, JWT_SECRET: _secret, ...inherited } = process.env;
    shell = new PageShell(dir, {
      ...(inherited as Record<string, string>),
      ...database!.env,
      // The reader's PATH: Node and the repository's pnpm are on it.
      PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    });
  });

  afterAll(() => shell?.close());

  for (const example of examples) {
    const name = `${page}:${example.line}`;
    if (example.skip !== undefined) {
      it.skip(`${name} (skipped: ${example.skip})`, () => {});
      continue;
    }
    // A step may restart the service: minutes on a loaded machine.
    it(name, { timeout: 300_000 }, async () => {
      for (const step of stepsOf(example).flatMap(splitAtStarts)) {
        const where = `${page}:${step.line}`;
        if ('start' in step && step.start) {
          const exported = await shell.exported();
          await start({ ...exported, ...step.start });
          continue;
        }
        const script = step.script.replaceAll(PAGE_ADDRESS, `127.0.0.1:${port}`);
        const { stdout, stderr: errors, status } = await shell.run(script);
        const report = `${where}\n${step.script}\n--- printed:\n${stdout}\n--- stderr:\n${errors}`;
        expect(status, `exit status of the commands at ${report}`).toBe(0);
        if (step.answer !== undefined) {
          expect(answerDifferences(step.answer, stdout), `the answer shown at ${report}`).toEqual([]);
        }
      }
    });
  }
});
