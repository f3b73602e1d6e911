/**
 * What a `pnpm bench` run is asked for: its command line (`--only`, `--against`) and its
 * environment (BENCH_*), read once.
 */
import path from 'node:path';

export const seconds = Number(process.env.BENCH_SECONDS ?? 5);
export const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
export const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
/** Orders bulk-loaded before the rows on a PostgreSQL server. */
export const listOrders = Number(process.env.BENCH_LIST_ORDERS ?? 200_000);
/** `--only a,b` or BENCH_ONLY='a,b': the scenarios whose name contains any of them, case-insensitive. */
const onlyArgument = process.argv.indexOf('--only');
const only = (onlyArgument >= 0 ? process.argv[onlyArgument + 1] : process.env.BENCH_ONLY)
  ?.split(',')
  .map((term) => term.trim().toLowerCase())
  .filter(Boolean);
/** A term ending in `$` must end the name: `one series)$` is the create row, not the one with a webhook. */
export const wanted = (scenario: string) =>
  !only?.length ||
  only.some((term) =>
    term.endsWith('$') ? scenario.toLowerCase().endsWith(term.slice(0, -1)) : scenario.toLowerCase().includes(term),
  );
/** `--against <git ref>`: that build's server beside this one, every scenario in interleaved rounds. */
const againstArgument = process.argv.indexOf('--against');
export const againstRef = againstArgument >= 0 ? process.argv[againstArgument + 1] : undefined;
/** apps/server: its dist/main.js is the service, its scripts/ the baselines. */
export const serverRoot = path.resolve(import.meta.dirname, '../..');
export const secret = 'bench-only-secret-for-hs256-tokens-0123456789';
