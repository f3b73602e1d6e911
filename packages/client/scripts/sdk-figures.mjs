// The SDK's figures that docs/sdk.md states, from the build and measured, never typed by hand:
//   node scripts/sdk-figures.mjs                 the sizes of dist/ (build it first)
//   node scripts/sdk-figures.mjs --type-check    and how long tsc takes over a strict one-file app
//                                                using the packed SDK (packs and npm-installs it)
//   ... --write                                  writes them into docs/sdk.md (between its
//                                                sdk-sizes / sdk-type-check markers)
// apps/server/test/unit/sdk-figures.test.ts fails when the page's sizes drift from the build.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const clientRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const page = path.resolve(clientRoot, '..', '..', 'docs', 'sdk.md');
const require = createRequire(import.meta.url);

/** The built files a user installs, each as docs/sdk.md's table names it. */
export const BUILT_FILES = [
  { file: 'index.js', what: 'ES module' },
  { file: 'index.cjs', what: 'CommonJS' },
  { file: 'index.d.ts', what: 'types for import (`index.d.cts` for require is the same)' },
];

/** A size as the page writes it: KB of 1,000 bytes with one decimal, as npm and tsup print them. */
export const kilobytes = (bytes) => `${(bytes / 1000).toFixed(1)} KB`;

const sizes = () =>
  BUILT_FILES.map(({ file, what }) => ({ file, what, bytes: statSync(path.join(clientRoot, 'dist', file)).size }));

/**
 * The app: strict TypeScript as an integration would write it (create, read, a conditional
 * update, confirm, a list, the change feed narrowed by type, a webhook, an error's details).
 */
const APP = `import {
  createSalesOrderClient,
  SalesOrderApiError,
  SalesOrderPreconditionFailedError,
  type SalesOrder,
  verifyWebhook,
} from '@sales-order/client';

const orders = createSalesOrderClient({ baseUrl: 'http://127.0.0.1:3000/api', auth: { type: 'apiKey', key: 'sok_...' } });

export const placeOrder = async (customerId: number, productId: number): Promise<SalesOrder> => {
  const created = await orders.createSalesOrder({
    customer_id: customerId,
    sales_order_date: new Date().toISOString().slice(0, 10),
    location_id: 1,
    details: [{ product_id: productId, quantity: 2, rate: 1260 }],
  });
  const order = await orders.getSalesOrder(created.sales_order_id);
  try {
    await orders.updateSalesOrder(order.sales_order_id, { remarks: 'Call first' }, { ifMatch: order.version });
  } catch (error) {
    if (!(error instanceof SalesOrderPreconditionFailedError)) throw error;
  }
  return orders.confirmSalesOrder(order.sales_order_id, { acknowledge_warnings: true });
};

export const bigOrders = async (): Promise<string[]> => {
  const numbers: string[] = [];
  for await (const order of orders.salesOrders({ sort: '-grand_total', min_total: 10_000 })) numbers.push(order.sales_order_no);
  return numbers;
};

export const confirmedSince = async (after: string | undefined) => {
  const ids: number[] = [];
  const feed = orders.events({ after, types: ['sales_order.confirmed'] });
  for await (const event of feed) ids.push(event.sales_order_id);
  return { ids, cursor: feed.cursor };
};

export const receive = (headers: Record<string, string>, body: string, secret: string) => {
  const event = verifyWebhook(headers, body, secret);
  return 'sales_order_id' in event.data ? event.data.grand_total : undefined;
};

export const problems = (error: unknown) =>
  error instanceof SalesOrderApiError ? error.details.map((detail) => \`\${detail.path}: \${detail.code}\`) : [];
`;

/** A user's strict project, for Node and browsers (what the docs harness compiles with too). */
const COMPILER_OPTIONS = {
  strict: true,
  exactOptionalPropertyTypes: true,
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  target: 'ES2022',
  lib: ['ES2022', 'DOM'],
  types: [],
  noEmit: true,
};

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * tsc over the app against the packed and installed SDK, `runs` times for each setting: the
 * median check and total times (tsc --extendedDiagnostics) and the machine's load meanwhile.
 */
const typeCheck = (runs = 3) => {
  const project = mkdtempSync(path.join(tmpdir(), 'sdk-figures-'));
  try {
    execFileSync('pnpm', ['pack', '--pack-destination', project], { cwd: clientRoot, stdio: 'ignore' });
    const tarball = readdirSync(project).find((name) => name.endsWith('.tgz'));
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
    // npm as a user runs it: without the npm_config_* pnpm sets for a script.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_config_/i.test(name)));
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `./${tarball}`], {
      cwd: project,
      env,
      stdio: 'ignore',
    });
    writeFileSync(path.join(project, 'app.ts'), APP);
    const tsc = require.resolve('typescript/bin/tsc');
    const settings = [
      { name: 'skipLibCheck', options: { skipLibCheck: true } },
      { name: 'skipDefaultLibCheck', options: { skipDefaultLibCheck: true } },
      { name: 'default', options: {} },
    ];
    const loads = [];
    const results = settings.map(({ name, options }) => {
      writeFileSync(
        path.join(project, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: { ...COMPILER_OPTIONS, ...options }, files: ['app.ts'] }),
      );
      const check = [];
      const total = [];
      for (let run = 0; run < runs; run += 1) {
        loads.push(loadavg()[0]);
        const output = execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json', '--extendedDiagnostics'], {
          cwd: project,
          encoding: 'utf8',
        });
        check.push(Number(/^Check time:\s+([\d.]+)s/m.exec(output)[1]));
        total.push(Number(/^Total time:\s+([\d.]+)s/m.exec(output)[1]));
      }
      return { name, check: median(check), total: median(total) };
    });
    return {
      typescript: require('typescript/package.json').version,
      node: process.versions.node,
      load: median(loads),
      date: new Date().toISOString().slice(0, 10),
      runs,
      results,
    };
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
};

const sizesBlock = (files) =>
  [
    '| file | what | size |',
    '| --- | --- | --- |',
    ...files.map(({ file, what, bytes }) => `| \`dist/${file}\` | ${what} | ${kilobytes(bytes)} |`),
  ].join('\n');

const typeCheckBlock = ({ typescript, node, load, date, runs, results }) => {
  const of = (name) => results.find((result) => result.name === name);
  const fast = of('skipLibCheck');
  const sdk = of('skipDefaultLibCheck');
  const full = of('default');
  const seconds = ({ check, total }) => `${check.toFixed(1)} s of check time (${total.toFixed(1)} s in all)`;
  return wrap(
    `A strict one-file app that calls the client (\`strict\`, \`exactOptionalPropertyTypes\`, NodeNext, ` +
      `\`lib: ["ES2022", "DOM"]\`; the app is in \`packages/client/scripts/sdk-figures.mjs\`) type-checks with ` +
      `TypeScript ${typescript} in ${seconds(fast)} with \`skipLibCheck: true\`, as \`tsc --init\` writes it. ` +
      `Without it, tsc checks every declaration file too: ${seconds(full)}, most of it TypeScript's own ` +
      `\`lib.dom.d.ts\`; with \`skipDefaultLibCheck\` (the SDK's declarations checked, TypeScript's lib files ` +
      `not) ${seconds(sdk)}. Medians of ${runs} runs on Node ${node}, ${date}, at load ${load.toFixed(0)} on ` +
      `this project's 2-core machine.`,
  );
};

/** Text in lines of at most `width` characters (the pages are wrapped by hand, not by Prettier). */
const wrap = (text, width = 100) => {
  const lines = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line].join('\n');
};

/** Replaces what lies between `<!-- name -->` and `<!-- /name -->` in the page's text. */
const between = (text, name, block) => {
  const start = `<!-- ${name} -->`;
  const end = `<!-- /${name} -->`;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from === -1 || to < from) throw new Error(`docs/sdk.md has no ${start} ... ${end}`);
  return `${text.slice(0, from + start.length)}\n${block}\n${text.slice(to)}`;
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = sizes();
  console.log(sizesBlock(files));
  const measured = process.argv.includes('--type-check') ? typeCheck() : undefined;
  if (measured) console.log(`\n${typeCheckBlock(measured)}`);
  if (process.argv.includes('--write')) {
    let text = between(readFileSync(page, 'utf8'), 'sdk-sizes', sizesBlock(files));
    if (measured) text = between(text, 'sdk-type-check', typeCheckBlock(measured));
    writeFileSync(page, text);
    console.log(`\nwritten to ${path.relative(process.cwd(), page)}`);
  }
}
