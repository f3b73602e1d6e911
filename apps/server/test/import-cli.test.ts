import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { whyBuild } from '../bin/build-freshness.mjs';
import { createApiKey } from './support/credentials.js';
import { type Fixtures, importLine, ORDER_DATE } from './support/fixtures.js';
import { nodeArgumentsOf, serverRoot } from './support/server-process.js';
import { useServerWithFixtures } from './support/test-server.js';

/**
 * `pnpm run import FILE` as an operator runs it: the CLI in a process of its own against a
 * running service, its exit status, what it printed (the progress lines, the summary, the failed
 * orders, the results' address) and the results file it saved.
 */
const repositoryRoot = path.resolve(serverRoot, '..', '..');
const HEADER = 'order_ref,customer_id,location_id,sales_order_date,product_id,quantity,rate,customer_reference';
const row = (f: Fixtures, ref: string, quantity: string | number = 1) =>
  [ref, f.customers.customer.id, f.locations.dhaka.id, ORDER_DATE, f.products.otherProduct.id, quantity, 10, ref].join(
    ',',
  );

type Run = { code: number; stdout: string; stderr: string };

/** `command` in `cwd` with only `env` beside PATH and HOME (no SALES_ORDER_* of the test's own environment). */
const runProcess = (command: string, argv: string[], env: Record<string, string>, cwd = serverRoot): Promise<Run> =>
  new Promise((resolve) => {
    execFile(
      command,
      argv,
      {
        cwd,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'silent', ...env },
        timeout: 120_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });

/** The CLI with `args`, run in the server's folder. */
const runCli = (args: string[], env: Record<string, string>, viaTerminal = false): Promise<Run> => {
  const node = [process.execPath, ...nodeArgumentsOf('cli/import'), ...args];
  // At a terminal: util-linux `script` gives the CLI a pseudo-terminal of its own.
  return viaTerminal
    ? runProcess('script', ['-qfec', node.map((part) => `'${part}'`).join(' '), '/dev/null'], env)
    : runProcess(node[0]!, node.slice(1), env);
};

/** Whether the launcher would run the build as it is (else it would build first: not in a test). */
const buildIsCurrent = whyBuild(repositoryRoot, '@sales-order/server') === undefined;

describe('import CLI', () => {
  // Chunks of 2: the progress changes several times over a few orders.
  const suite = useServerWithFixtures({ IMPORT_CHUNK_SIZE: '2' });
  const folder = mkdtempSync(path.join(tmpdir(), 'import-cli-'));
  let env: Record<string, string>;
  const fileOf = (name: string, text: string) => {
    const file = path.join(folder, name);
    writeFileSync(file, text);
    return file;
  };

  beforeAll(async () => {
    const { key } = await createApiKey(suite.server.database.prisma, ['sales_orders.import', 'sales_orders.create'], {
      name: 'operator import',
    });
    env = { SALES_ORDER_URL: suite.server.api, SALES_ORDER_API_KEY: key };
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('a CSV with a bad row: progress lines, the summary, the failed order, the results saved as CSV; exit 3', async () => {
    const f = suite.fixtures;
    const file = fileOf(
      'orders.csv',
      [
        HEADER,
        row(f, 'cli-1'),
        row(f, 'cli-1', 2),
        row(f, 'cli-2'),
        row(f, 'cli-3', 'ten'),
        row(f, 'cli-4'),
        row(f, 'cli-5'),
      ].join('\n'),
    );
    const results = path.join(folder, 'results.csv');
    const run = await runCli([file, '--results', results], env);
    expect(run.code, run.stderr).toBe(3);
    const id = Number(/^Import (\d+) queued/.exec(run.stdout)?.[1]);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`Import ${id} queued: 5 orders in orders.csv.`);
    expect(lines[1]).toMatch(
      new RegExp(
        `^Import ${id} completed in \\d+\\.\\d s: 5 orders in the file \\(6 rows read\\), 4 created, 1 failed\\.$`,
      ),
    );
    expect(lines.slice(2)).toEqual([
      'Failed orders:',
      '  cli-3 (line 5): line 5, column quantity: "ten" is not a number',
      `Results: ${suite.server.api}/imports/${id}/results (JSON Lines; CSV with Accept: text/csv)`,
      `Results saved to ${results} (CSV).`,
      'finished: 4 created, 1 failed',
    ]);
    // Not a terminal: a line each time the counts changed, ending at the end.
    const progress = run.stderr.trimEnd().split('\n');
    expect(progress.at(-1)).toBe(`Import ${id} completed: 5 of 5 orders done: 4 created, 1 failed`);
    for (const line of progress)
      expect(line).toMatch(new RegExp(`^Import ${id} (queued|running|completed): \\d of 5 orders done`));
    expect(new Set(progress).size).toBe(progress.length);

    const saved = readFileSync(results, 'utf8').trimEnd().split('\n');
    expect(saved[0]).toBe('order_ref,lines,status,sales_order_id,order_number,errors');
    expect(saved.slice(1).map((line) => line.split(',').slice(0, 3).join(','))).toEqual([
      'cli-1,2 3,created',
      'cli-2,4,created',
      'cli-3,5,failed',
      'cli-4,6,created',
      'cli-5,7,created',
    ]);
    expect(saved[3]).toContain('[invalid_cell]');
    expect(
      await suite.server.database.prisma.salesOrder.count({ where: { customerReference: { startsWith: 'cli-' } } }),
    ).toBe(4);
  });

  it("this machine's service and its demo key by default; JSON Lines results; exit 0; a bar at a terminal", async () => {
    const f = suite.fixtures;
    const dataDir = mkdtempSync(path.join(folder, 'data-'));
    writeFileSync(path.join(dataDir, 'demo-api-key'), `${env.SALES_ORDER_API_KEY}\n`);
    const { port, pathname } = new URL(suite.server.api);
    const local = { DATA_DIR: dataDir, HOST: '0.0.0.0', PORT: port, BASE_PATH: pathname };
    const body = (ref: string) => importLine(f, ref);
    const file = fileOf('orders.jsonl', ['jl-1', 'jl-2', 'jl-3'].map(body).join('\n'));
    const results = path.join(folder, 'results.jsonl');

    const run = await runCli([file, '--results', results], local);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/completed in [\d.]+ s: 3 orders in the file \(3 lines read\), 3 created, 0 failed\./);
    expect(run.stdout).not.toContain('Failed orders');
    expect(run.stdout).toContain(`Results saved to ${results} (JSON Lines).`);
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('finished: 3 created, 0 failed');
    const saved = readFileSync(results, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { order_ref: string; status: string; order_number: string });
    expect(saved.map((result) => [result.order_ref, result.status])).toEqual([
      ['jl-1', 'created'],
      ['jl-2', 'created'],
      ['jl-3', 'created'],
    ]);
    expect(saved[0]!.order_number).toMatch(/^CTG-2026-\d+$/);

    // At a terminal the progress is a bar redrawn in place, ending full.
    const again = await runCli([fileOf('again.jsonl', ['tty-1', 'tty-2'].map(body).join('\n'))], local, true);
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toMatch(/\[#{20}\] 100% \| 2\/2 orders, 0 failed/);
    expect(again.stdout).toContain('\r');
  });

  it('the same file twice: its orders fail duplicate_order_ref (exit 3); --allow-duplicates makes them again (exit 0)', async () => {
    const f = suite.fixtures;
    const file = fileOf('twice.csv', [HEADER, row(f, 'twice-1'), row(f, 'twice-2')].join('\n'));
    expect((await runCli([file], env)).code).toBe(0);

    const again = await runCli([file], env);
    expect(again.code, again.stderr).toBe(3);
    expect(again.stdout).toMatch(/0 created, 2 failed/);
    expect(again.stdout).toMatch(/order_ref "twice-1" already made order /);

    const allowed = await runCli([file, '--allow-duplicates'], env);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toMatch(/2 created, 0 failed/);
    expect(
      await suite.server.database.prisma.salesOrder.count({
        where: { customerReference: { in: ['twice-1', 'twice-2'] } },
      }),
    ).toBe(4);
  });

  it('refusals: usage (2), a file the service will not read, a wrong key, no service (1); --no-wait', async () => {
    const usage = await runCli([fileOf('orders.txt', 'x')], env);
    expect(usage).toMatchObject({ code: 2, stdout: '' });
    expect(usage.stderr).toContain('orders.txt does not end in .csv, .jsonl or .ndjson');
    expect((await runCli([], env)).code).toBe(2);
    expect((await runCli(['a.csv', 'b.csv'], env)).code).toBe(2);

    const empty = await runCli([fileOf('empty.csv', '')], env);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/^The service refused it \(HTTP 400\): .*not CSV/);

    const wrongKey = await runCli([fileOf('one.csv', `${HEADER}\n${row(suite.fixtures, 'never')}`)], {
      ...env,
      SALES_ORDER_API_KEY: 'not-a-key',
    });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toMatch(/^The service refused it \(HTTP 401\)/);

    const nowhere = await runCli([path.join(folder, 'one.csv')], { ...env, SALES_ORDER_URL: 'http://127.0.0.1:9/api' });
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toContain('Could not reach the service at http://127.0.0.1:9/api');

    const queued = await runCli([path.join(folder, 'one.csv'), '--no-wait'], env);
    expect(queued.code, queued.stderr).toBe(0);
    const id = Number(/^Import (\d+) queued/.exec(queued.stdout)?.[1]);
    expect(queued.stdout).toContain(`Follow it at ${suite.server.api}/imports/${id} and read its results at`);
    expect(queued.stderr).toBe('');
  });

  it('finds files from the folder it was called in (INIT_CWD, as pnpm run sets it) and names the full path it could not read', async () => {
    const f = suite.fixtures;
    const caller = mkdtempSync(path.join(folder, 'caller-'));
    writeFileSync(path.join(caller, 'mine.csv'), [HEADER, row(f, 'cwd-1'), row(f, 'cwd-2')].join('\n'));
    // The process runs in the server's folder, as pnpm runs a script in the root; the names are the caller's.
    const run = await runCli(['mine.csv', '--results', 'mine-results.csv'], { ...env, INIT_CWD: caller });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Results saved to ${path.join(caller, 'mine-results.csv')} (CSV).`);
    expect(readFileSync(path.join(caller, 'mine-results.csv'), 'utf8')).toMatch(/^order_ref,.*\ncwd-1,2,created,/);

    const missing = await runCli(['missing.csv'], { ...env, INIT_CWD: caller });
    expect(missing).toEqual({
      code: 1,
      stdout: '',
      stderr: `Cannot read ${path.join(caller, 'missing.csv')}: no such file\n`,
    });
  });

  it.skipIf(!buildIsCurrent)(
    'as `pnpm sales-order import` from another folder: the path from there, the status as it is, no pnpm noise',
    async () => {
      const f = suite.fixtures;
      const file = fileOf('bin.csv', [HEADER, row(f, 'bin-1'), row(f, 'bin-2', 'two')].join('\n'));
      // pnpm runs a bin where it was called: here the repository's docs folder, the file named from there.
      const run = await runProcess(
        'pnpm',
        ['sales-order', 'import', path.relative(path.join(repositoryRoot, 'docs'), file)],
        env,
        path.join(repositoryRoot, 'docs'),
      );
      expect(run.code, run.stderr).toBe(3);
      expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('finished: 1 created, 1 failed');
      expect(run.stderr).not.toMatch(/ELIFECYCLE|ERR_PNPM|building/);
    },
  );
});
