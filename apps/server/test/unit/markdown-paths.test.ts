import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ROOT } from '../support/doc-examples.js';

/**
 * `pnpm lint`'s own markdownlint rules (scripts/markdownlint-rules.mjs): a path of the repository
 * named in a code span must exist (`code-paths-exist`), and a link's fragment into a Markdown
 * file must name one of its headings (`relative-links-exist`). Run as `pnpm lint` runs them, on a
 * page of its own: the rules resolve the page's paths against the repository, whatever folder the
 * page is in.
 */

const docs = path.join(ROOT, 'docs');
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
  `Links: [a heading](${docs}/api.md#imports--a-file-of-many-orders-in-the-background), [none](${docs}/api.md#no-such-heading),`,
  `[another page's heading](${docs}/authentication.md#configuration), [a page](${docs}/cli.md).`,
  '',
].join('\n');

let dir: string;
let result: { status: number; output: string };

/** markdownlint-cli2 on the page, as `pnpm lint` runs it: its exit status and what it printed. */
const lint = () =>
  promisify(execFile)(path.join(ROOT, 'node_modules/.bin/markdownlint-cli2'), ['page.md'], { cwd: dir }).then(
    ({ stdout, stderr }) => ({ status: 0, output: stdout + stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      status: error.code,
      output: error.stdout + error.stderr,
    }),
  );

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'markdown-paths-'));
  await writeFile(path.join(dir, 'page.md'), page);
  await writeFile(
    path.join(dir, '.markdownlint-cli2.jsonc'),
    JSON.stringify({
      config: { default: false, 'code-paths-exist': true, 'relative-links-exist': true },
      customRules: [path.join(ROOT, 'scripts/markdownlint-rules.mjs')],
    }),
  );
  result = await lint();
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('markdownlint: code-paths-exist', () => {
  it('names each code span whose repository path does not exist, and nothing else', async () => {
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

  it('names a link whose fragment is no heading of the page it links to', async () => {
    const found = result.output
      .split('\n')
      .filter((line) => line.includes('relative-links-exist'))
      .map((line) => /^page\.md:(\d+).*\[(\S+): no heading of that name\]/.exec(line)?.slice(1));
    expect(found).toEqual([['15', `${docs}/api.md#no-such-heading`]]);
  });
});
