/**
 * `--against <ref>`: the ref's server (against.ts builds it in a temporary worktree) and the
 * current one side by side, each on a database of its own migrated by its own migrations and
 * seeded by its own demo data, then every wanted scenario of the single service in BENCH_ROUNDS
 * interleaved rounds (the current build first in odd rounds, the ref first in even ones). Both
 * are prepared and driven by this bench's client over HTTP only. No floors, bursts, import,
 * metrics or cluster rows. Bounded by BENCH_AGAINST_MINUTES in all (rounds stop early when
 * another would not fit; past the bound the run is stopped and fails); the worktree, the
 * databases and the processes are removed on every way out, a signal included.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { buildRef, compareRounds, type Round, roundsText } from './against.js';
import { autovacuumStandIn } from './autovacuum.js';
import { connections, listOrders, seconds, serverRoot, wanted } from './options.js';
import { adminQuery, cpuMs, loadListOrders, startService, stopProcess } from './processes.js';
import { CREATE_ROW } from './rows.js';
import { scenariosOf } from './scenarios.js';
import { callers, prepareTarget, runScenario } from './target.js';

/** Undone last first: processes, then databases, then the worktree. */
type Cleanups = (() => Promise<unknown>)[];
type Service = ReturnType<typeof startService>;
/** Per scenario: the current build's rounds and the ref's. */
type Measured = Map<string, [Round[], Round[]]>;

/** Both builds' services, each on a database of its own (on the server, or embedded). */
const startBoth = async (
  serverUrl: string | undefined,
  roots: string[],
  cleanups: Cleanups,
): Promise<{ service: Service; origin: string; url: URL | undefined }[]> => {
  const services = [];
  for (const [index, root] of roots.entries()) {
    let env: Record<string, string>;
    const database = `so_bench_${Date.now().toString(36)}_${index}`;
    const url = serverUrl ? new URL(serverUrl) : undefined;
    if (serverUrl && url) {
      url.pathname = `/${database}`;
      await adminQuery(serverUrl, `CREATE DATABASE "${database}"`);
      cleanups.push(() => adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));
      env = { DATABASE_URL: url.toString() };
    } else {
      const dataDir = await mkdtemp(path.join(tmpdir(), 'sales-orders-bench-'));
      cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
      env = { DATA_DIR: dataDir };
    }
    const service = startService(
      { ...env, SEED_DEMO_DATA: 'always', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
      [],
      root,
    );
    cleanups.push(() => stopProcess(service.child));
    services.push({ service, origin: await service.origin, url });
  }
  return services;
};

/**
 * What each process spends with no request at all (its polls, relays and timers), both idle
 * at once: a build with more background work reads more CPU per request at a low rate.
 */
const idleNote = async (pids: number[], labels: [string, string]) => {
  const idleSeconds = 5;
  const idleBefore = await Promise.all(pids.map(cpuMs));
  await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1_000));
  const idleAfter = await Promise.all(pids.map(cpuMs));
  return (
    `idle, both at once for ${idleSeconds} s: ` +
    labels
      .map(
        (label, index) => `${label} ${Math.round((idleAfter[index]! - idleBefore[index]!) / idleSeconds)} ms of CPU/s`,
      )
      .join(', ')
  );
};

/** Loads both databases at once (the services idle meanwhile), prepares both services and runs the rounds. */
const compareBoth = async (
  services: Awaited<ReturnType<typeof startBoth>>,
  labels: [string, string],
  { deadline, minutes, measured, notes }: { deadline: number; minutes: number; measured: Measured; notes: string[] },
) => {
  await Promise.all(
    services.map(async ({ url }, index) => {
      if (!url || listOrders <= 0) return;
      console.log(`loading ${listOrders} orders for the list scenarios into ${labels[index]}'s database...`);
      // The current bulk loader on the ref's schema; a ref whose tables it does not fit keeps its demo data.
      await loadListOrders(url.toString(), listOrders).catch((error: unknown) =>
        notes.push(`${labels[index]}: no ${listOrders} orders loaded (${String(error)}); its lists read the demo data`),
      );
    }),
  );
  const standIns = await Promise.all(
    services.map(({ url }) => (url ? autovacuumStandIn(url.toString()) : Promise.resolve(undefined))),
  );
  const { headers, scopedHeaders } = await callers();
  const createRates: (number | undefined)[] = [undefined, undefined];
  const targets = await Promise.all(
    services.map(({ origin, url }, index) => prepareTarget(origin, headers, () => createRates[index], url?.toString())),
  );
  const lists = targets.map((target) => scenariosOf(target, scopedHeaders).filter(({ name }) => wanted(name)));
  notes.push(
    await idleNote(
      services.map(({ service }) => service.child.pid!),
      labels,
    ),
  );
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  let roundMs = 0;
  for (let round = 0; round < rounds; round += 1) {
    // Another round only when it fits in the bound, as long as the last one took, with a minute to clean up.
    if (round > 0 && Date.now() + roundMs + 60_000 > deadline) {
      notes.push(`${round} of ${rounds} rounds: the next would not have fitted in ${minutes} min`);
      break;
    }
    const roundStarted = Date.now();
    for (const [at, scenario] of lists[0]!.entries()) {
      for (const index of round % 2 === 0 ? [0, 1] : [1, 0]) {
        const figures = measured.get(scenario.name) ?? [[], []];
        measured.set(scenario.name, figures);
        await standIns[index]?.settle();
        const result = await runScenario(targets[index]!, lists[index]![at]!, services[index]!.service.child.pid, false)
          .then(({ result: { rps, p99, cpuUs, failed, answered, failures } }) => {
            if (failures) notes.push(`${labels[index]}, '${scenario.name}', round ${round + 1}: ${failures}`);
            return { rps, p99, cpuUs, failed, answered };
          })
          .catch((error: unknown) => {
            notes.push(`${labels[index]}, '${scenario.name}', round ${round + 1}: ${String(error).slice(0, 300)}`);
            return { rps: 0, p99: null, cpuUs: null, failed: 1, answered: 0 };
          });
        figures[index]!.push(result);
        if (scenario.name === CREATE_ROW) createRates[index] = result.rps;
      }
    }
    roundMs = Date.now() - roundStarted;
  }
  standIns.forEach((standIn, index) => {
    const line = standIn?.describe();
    if (line) notes.push(`${labels[index]}'s database: ${line}`);
  });
};

/** Both builds' rows per scenario, their ratio, the notes, and whether the current build is broken. */
const printAgainst = (measured: Measured, labels: [string, string], notes: string[], serverUrl: string | undefined) => {
  const table = [...measured].flatMap(([scenario, [current, other]]) => {
    const { rps, cpu, verdict } = compareRounds(current, other);
    const row = (build: string, series: Round[]) => ({
      scenario,
      build,
      'req/s': roundsText(series, (each) => each.rps),
      'p99 ms': roundsText(series, (each) => each.p99),
      'CPU µs/req': roundsText(series, (each) => each.cpuUs),
      failed: series.reduce((sum, each) => sum + each.failed, 0),
    });
    return [
      {
        ...row(labels[0], current),
        'current / ref':
          `req/s ${rps === null ? '-' : rps.toFixed(2)} x, CPU ${cpu === null ? '-' : cpu.toFixed(2)} x: ` + verdict,
      },
      { ...row(labels[1], other), 'current / ref': '' },
    ];
  });
  console.log(
    `\n${seconds} s per scenario and round, ${connections} connections, rounds interleaved (each round's figures in ` +
      `the order they ran), database: ${serverUrl ? `PostgreSQL server, ${listOrders} orders each` : 'embedded PGlite'}, node ${process.version}\n`,
  );
  console.table(table);
  for (const note of notes) console.log(`note: ${note}`);
  // A slower figure fails nothing; a current route that mostly fails is broken (the ref's may not exist yet).
  const broken = [...measured].filter(([, [current]]) => {
    const answered = current.reduce((sum, each) => sum + each.answered, 0);
    return answered === 0 || current.reduce((sum, each) => sum + each.failed, 0) * 2 > answered;
  });
  for (const [scenario] of broken) console.error(`broken: '${scenario}' mostly failed on the current build`);
  if (broken.length > 0) process.exitCode = 1;
};

export const mainAgainst = async (ref: string) => {
  const serverUrl = process.env.BENCH_DATABASE_URL;
  const minutes = Number(process.env.BENCH_AGAINST_MINUTES ?? 30);
  const deadline = Date.now() + minutes * 60_000;
  const cleanups: Cleanups = [];
  const cleanUp = async () => {
    for (let next = cleanups.pop(); next; next = cleanups.pop())
      await next().catch((error: unknown) => console.error(`cleaning up: ${String(error)}`));
  };
  const stop = (why: string, code: number) => {
    console.error(`--against: ${why}; cleaning up`);
    void cleanUp().finally(() => process.exit(code));
  };
  const onSignal = (signal: NodeJS.Signals) => stop(`stopped by ${signal}`, signal === 'SIGINT' ? 130 : 143);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const bound = setTimeout(() => stop(`over its bound of ${minutes} min`, 1), deadline - Date.now());
  const measured: Measured = new Map();
  const notes: string[] = [];
  let labels: [string, string];
  try {
    const build = await buildRef(path.resolve(serverRoot, '../..'), ref, deadline);
    cleanups.push(build.remove);
    labels = ['current', `${ref} (${build.commit})`];
    const services = await startBoth(serverUrl, [serverRoot, build.serverRoot], cleanups);
    await compareBoth(services, labels, { deadline, minutes, measured, notes });
  } finally {
    clearTimeout(bound);
    await cleanUp();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  printAgainst(measured, labels, notes, serverUrl);
};
