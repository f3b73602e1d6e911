/**
 * The single service's figures as `pnpm bench` prints them: the table, each row read against
 * what it is compared with and its target, then the lines of the rows that are not requests
 * (webhooks, bursts, bulk calls alone, the import, reports), and whether a route is broken.
 */
import { type AloneLatencies, describeAlone, importAgainstBulk, ordersPerSecond } from './bulk.js';
import { type BurstFigures, describeBurst } from './burst.js';
import { LICENCE_HISTORY_TARGET } from './licence.js';
import { connections, seconds } from './options.js';
import type { Row } from './rows.js';
import { describeWebhooks, type WebhookFigures } from './webhooks.js';

export interface Figures {
  rows: Row[];
  anchor: { tps: number; p50: number; p99: number } | undefined;
  serverUrl: string | undefined;
  webhookFigures?: WebhookFigures;
  bursts: BurstFigures[];
  aloneLatencies?: AloneLatencies;
  importLine?: string;
  /** The report rows' lines (reports.ts). */
  reportLines: string[];
  /** What the autovacuum stand-in did, when it did anything. */
  standInLine?: string;
}

/** `row` read against another row by name: its req/s over the other's, and its p99 over the other's. */
const against = (rows: Row[], row: Row, name: string | undefined, label: string) => {
  const other = name ? rows.find((each) => each.scenario === name) : undefined;
  return other
    ? `, ${(row.rps / other.rps).toFixed(2)} x ${label}` +
        (row.p99 === null || other.p99 === null ? '' : ` (p99 ${(row.p99 / Math.max(1, other.p99)).toFixed(1)} x)`)
    : '';
};

/** `row` over the row it is bound against (Row.bound): its cost and its CPU per request. */
const boundRatios = (rows: Row[], row: Row) => {
  const other = rows.find((each) => each.scenario === row.bound?.row);
  if (!other) return undefined;
  return {
    cost: other.rps / Math.max(1, row.rps),
    cpu: row.cpuUs === null || other.cpuUs === null ? null : row.cpuUs / Math.max(1, other.cpuUs),
  };
};

/** The row's target and where it stands in this run; '' for a row without one. */
const targetOf = (rows: Row[], row: Row) => {
  const ratios = boundRatios(rows, row);
  if (row.bound && ratios) {
    const { on, at, label } = row.bound;
    const ratio = ratios[on];
    return ratio === null
      ? ''
      : `${on === 'cpu' ? 'CPU' : 'cost'} <= ${at} x ${label}: ${ratio.toFixed(2)} x, ${ratio <= at ? 'met' : 'not met'}`;
  }
  const small = rows.find((each) => each.scenario === row.history);
  if (small) {
    const cost = small.rps / Math.max(1, row.rps);
    return `cost <= ${LICENCE_HISTORY_TARGET} x the ${small.scenario.match(/with ([\d,]+) lines/)?.[1]}-line row: ${cost.toFixed(2)} x, ${cost <= LICENCE_HISTORY_TARGET ? 'met' : 'not met'}`;
  }
  const floor = rows.find((each) => each.scenario === row.floor);
  if (row.floorTarget !== undefined && floor) {
    const share = row.rps / floor.rps;
    return `>= ${row.floorTarget} x floor: ${share.toFixed(2)} x, ${share >= row.floorTarget ? 'met' : 'not met'}`;
  }
  // The hello world's CPU beside it: on a busy machine every process's CPU per request grows.
  if (row.cpuCap !== undefined && row.cpuUs !== null)
    return (
      `CPU <= ${row.cpuCap} µs (a cap): ${row.cpuUs} µs, ${row.cpuUs <= row.cpuCap ? 'within' : 'over'}` +
      (rows[0]!.cpuUs === null ? '' : ` (hello ${rows[0]!.cpuUs} µs)`)
    );
  return '';
};

/** What the row is read against (Row.against), as its table cell says it. */
const ratioOf = (rows: Row[], row: Row, anchor: Figures['anchor']): string => {
  const hello = rows[0]!.rps;
  const fiveLineRead = rows.find((each) => each.scenario === 'GET order (5 lines)');
  const fiveLineCreate = rows.find((each) => each.scenario.startsWith('POST order (5 lines'));
  const fiveLineUpdate = rows.find((each) => each.scenario === 'PUT order (5 lines replaced)');
  switch (row.against) {
    case 'hello':
      return (
        `${(row.rps / hello).toFixed(2)} x hello` +
        against(rows, row, row.floor, 'floor') +
        against(rows, row, row.pgFloor, 'pg floor')
      );
    case 'pgbench':
      return anchor ? `${(row.rps / anchor.tps).toFixed(2)} x pgbench` : 'no pgbench';
    case 'read':
      return fiveLineRead ? `cost ${(fiveLineRead.rps / row.rps).toFixed(2)} x 5-line read` : '-';
    case 'create':
      return fiveLineCreate ? `cost ${(fiveLineCreate.rps / row.rps).toFixed(2)} x 5-line create` : '-';
    case 'create-rate':
      return fiveLineCreate ? `${(row.rps / fiveLineCreate.rps).toFixed(2)} x 5-line create` : '-';
    case 'metrics':
      return fiveLineRead ? `${(row.rps / fiveLineRead.rps).toFixed(2)} x without metrics` : '-';
    case 'update':
      return fiveLineUpdate ? `cost ${(fiveLineUpdate.rps / row.rps).toFixed(2)} x 5-line PUT` : '-';
    case 'unscoped':
      return against(rows, row, row.unscoped, 'unscoped').slice(2) || '-';
    case 'bulk':
      return fiveLineCreate
        ? `${ordersPerSecond(row)} orders/s: ${(ordersPerSecond(row) / fiveLineCreate.rps).toFixed(2)} x ` +
            `5-line create's; p50 ${((row.p50 ?? Number.NaN) / Math.max(1, fiveLineCreate.p50 ?? Number.NaN)).toFixed(1)} x its`
        : '-';
    case 'idle':
      return against(rows, row, row.idle, 'idle').slice(2) || '-';
    case 'history':
      return against(rows, row, row.history, 'the smaller history').slice(2) || '-';
    case 'bound': {
      const ratios = boundRatios(rows, row);
      return ratios
        ? `cost ${ratios.cost.toFixed(2)} x, CPU ${ratios.cpu === null ? '-' : ratios.cpu.toFixed(2)} x ${row.bound!.label}`
        : '-';
    }
    case null:
      return 'baseline';
  }
};

const printTable = ({ rows, anchor }: Figures) => {
  const table: Record<string, string | number>[] = rows.map((row) => ({
    scenario: row.scenario,
    'req/s': row.rps,
    'p50 ms': row.p50 ?? '-',
    'p99 ms': row.p99 ?? '-',
    ratio: ratioOf(rows, row, anchor),
    'RSS MB': row.rssNote ?? row.rssMb ?? '-',
    'CPU µs/req': row.cpuUs ?? '-',
    failed: row.failed,
    target: targetOf(rows, row),
  }));
  if (anchor)
    table.splice(1, 0, {
      scenario: 'baseline: pgbench create-order, one series',
      'req/s': anchor.tps,
      'p50 ms': anchor.p50,
      'p99 ms': anchor.p99,
      ratio: 'baseline',
      'RSS MB': '-',
      'CPU µs/req': '-',
      failed: 0,
      target: '',
    });
  console.table(table);
};

export const printFigures = (figures: Figures) => {
  const { rows, anchor, serverUrl } = figures;
  console.log(
    `\n${seconds} s per scenario, ${connections} connections, database: ${serverUrl ? 'PostgreSQL server' : 'embedded PGlite'}, node ${process.version}\n`,
  );
  printTable(figures);
  for (const row of rows.filter((each) => each.failures)) console.log(`failed in '${row.scenario}': ${row.failures}`);
  if (figures.webhookFigures) console.log(describeWebhooks(figures.webhookFigures));
  for (const each of figures.bursts) console.log(describeBurst(each));
  if (figures.aloneLatencies) console.log(describeAlone(figures.aloneLatencies));
  if (figures.importLine) console.log(figures.importLine);
  for (const line of figures.reportLines) console.log(line);
  if (figures.standInLine) console.log(figures.standInLine);
  const importLine = importAgainstBulk(rows);
  if (importLine) console.log(importLine);
  // The figures are for people to read: this machine's noise is too large for a threshold on
  // them. A route that mostly fails, though, is broken, not slow: CI (.ci/run) fails on it. A few
  // failures stay a note (a 503 for a wait past DATABASE_CONNECT_TIMEOUT_MS is by design).
  const broken = rows.filter((row) => row.answered === 0 || row.failed * 2 > row.answered);
  for (const row of broken)
    console.error(`broken: '${row.scenario}' had ${row.failed} failed requests of ${row.answered} answered`);
  if (broken.length > 0) process.exitCode = 1;
  if (!anchor)
    console.log(
      serverUrl
        ? 'pgbench not found: no database anchor for creates.'
        : 'Embedded database: no pgbench anchor (set BENCH_DATABASE_URL).',
    );
  console.log(
    serverUrl
      ? '(2 workers): WEB_CONCURRENCY=2 on the same database; RSS MB is the largest worker (and the whole cluster, primary included).'
      : 'No 2-worker rows: the embedded database runs in one process (set BENCH_DATABASE_URL).',
  );
};
