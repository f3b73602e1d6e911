import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ROOT } from '../support/doc-examples.js';

/**
 * `pnpm lint`'s markdownlint rule `code-paths-exist` (scripts/markdownlint-rules.mjs): a path of
 * the repository named in a code span must exist. Run as `pnpm lint` runs it, on a page of its
 * own: the rule resolves the page's paths against the repository, whatever folder the page is in.
 */

const page = [
  '# Paths',
  '',
  'A file that was never written: `src/orders/order-versions.ts`.',
  'Real ones: `src/orders/order-pricing.ts`, `apps/server/test/read-plans.test.ts`, `test/unit/money.test.ts`,',
  '`packages/contract/src/common.ts`, `orders/store/order-read-shape.ts`, `src/lines.ts` (the page), `apps/order-entry`.',
  'A missing test: `test/nothing-here.test.ts`.',
  'Not paths: `application/json`, `DATA_DIR/pgdata`, `/order-entry/`, `http://127.0.0.1:3000/api`.',
  'Placeholders and globs: `docs/decisions/<file>.md`, `src/*/store/*.ts`, `test/{a,b}.test.ts`, `src/.../x.ts`.',
  'Built or made at start: `apps/server/dist/main.js`, `data/demo-api-key`, `src/generated/prisma`.',
  '',
  '```text',
  'src/orders/in-a-fence.ts is code, `src/orders/in-a-fence.ts` too',
  '```',
  '',
].join('\n');

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'markdown-paths-'));
  await writeFile(path.join(dir, 'page.md'), page);
  await writeFile(
    path.join(dir, '.markdownlint-cli2.jsonc'),
    JSON.stringify({
      config: { default: false, 'code-paths-exist': true },
      customRules: [path.join(ROOT, 'scripts/markdownlint-rules.mjs')],
    }),
  );
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('markdownlint: code-paths-exist', () => {
  it('names each code span whose repository path does not exist, and nothing else', async () => {
    const cli = path.join(ROOT, 'node_modules/.bin/markdownlint-cli2');
    const result = await promisify(execFile)(cli, ['page.md'], { cwd: dir }).then(
      ({ stdout, stderr }) => ({ status: 0, output: stdout + stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        status: error.code,
        output: error.stdout + error.stderr,
      }),
    );
    const found = result.output
      .split('\n')
      .filter((line) => line.includes('code-paths-exist'))
      .map((line) => /^page\.md:(\d+).*\[([^\]]+) is not a file or folder of the repository\]/.exec(line)?.slice(1));
    expect(found).toEqual([
      ['3', 'src/orders/order-versions.ts'],
      ['6', 'test/nothing-here.test.ts'],
    ]);
    expect(result.status).toBe(1);
  });
});
