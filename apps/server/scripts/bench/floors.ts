/**
 * The floors some routes are read against: the fixed stack alone (scripts/bench-floor.mjs:
 * Express + ts-rest + the contract's validation, and one Prisma round trip for the reads,
 * answering the service's own bytes), and the reads' `pg` floors (scripts/bench-pg-floor.mjs: a
 * bare node:http server running the service's own statement through one `pg` round trip). A
 * floor runs when the scenario it stands under does.
 */
import { totalsBody } from './bodies.js';
import { type Load, measure } from './load.js';
import { wanted } from './options.js';
import { startProcess, stopProcess } from './processes.js';
import { FLOOR, PG_FLOOR, SCENARIO } from './rows.js';
import type { Run } from './run.js';

export const runFloors = async ({ rows, serverUrl, env, target: { origin, setupCall, orderId } }: Run) => {
  const floorAnswers = {
    calculateTotals: await setupCall(`${origin}/api/sales-orders/calculate-totals`, 200, totalsBody),
    getSalesOrder: await setupCall(`${origin}/api/sales-orders/${orderId}`, 200),
    listSalesOrders: await setupCall(`${origin}/api/sales-orders?limit=50`, 200),
  };
  const floor = startProcess('scripts/bench-floor.mjs', {
    FLOOR_ANSWERS: JSON.stringify(floorAnswers),
    // The embedded database serves the service alone: no round trip for the floor there.
    DATABASE_URL: serverUrl ? env.DATABASE_URL! : '',
  });
  try {
    const floorOrigin = await floor.origin;
    const floorScenarios: (Load & { name: string; under: string })[] = [
      {
        name: FLOOR.calculateTotals,
        under: SCENARIO.calculateTotals,
        method: 'POST',
        url: `${floorOrigin}/api/sales-orders/calculate-totals`,
        body: totalsBody,
      },
      ...(serverUrl
        ? [
            {
              name: FLOOR.getOrder,
              under: SCENARIO.getOrder,
              method: 'GET' as const,
              url: `${floorOrigin}/api/sales-orders/${orderId}`,
            },
            {
              name: FLOOR.list,
              under: SCENARIO.list,
              method: 'GET' as const,
              url: `${floorOrigin}/api/sales-orders?limit=50`,
            },
          ]
        : []),
    ];
    for (const { name, under: _under, ...scenario } of floorScenarios.filter(({ under }) => wanted(under))) {
      rows.push({ scenario: name, ...(await measure(floor.child.pid, scenario)), against: 'hello' });
    }
  } finally {
    await stopProcess(floor.child);
  }
};

/** The reads' `pg` floors, on a PostgreSQL server. */
export const runPgFloors = async ({ rows, serverUrl, env, target: { origin, headers, orderId } }: Run) => {
  const pgFloorScenarios = [
    { name: PG_FLOOR.getOrder, under: SCENARIO.getOrder, path: `/order/${orderId}` },
    { name: PG_FLOOR.list, under: SCENARIO.list, path: '/list' },
  ].filter(({ under }) => serverUrl && wanted(under));
  if (pgFloorScenarios.length === 0) return;
  // PG_FLOOR_DIST (bench-pg-floor.mjs), when set, reaches it with the rest of the environment.
  const pgFloor = startProcess('scripts/bench-pg-floor.mjs', { DATABASE_URL: env.DATABASE_URL! });
  try {
    const pgFloorOrigin = await pgFloor.origin;
    for (const { name, path: floorPath } of pgFloorScenarios) {
      const url = `${pgFloorOrigin}${floorPath}`;
      // The floor answers the service's bytes (the list's next_cursor aside, which it writes itself).
      const [floorAnswer, serviceAnswer] = await Promise.all([
        fetch(url).then((response) => response.text()),
        fetch(`${origin}/api${floorPath === '/list' ? '/sales-orders?limit=50' : `/sales-orders/${orderId}`}`, {
          headers,
        }).then((response) => response.text()),
      ]);
      if (floorAnswer !== serviceAnswer) {
        console.log(
          `note: ${name} answers ${floorAnswer.length} bytes, the service ${serviceAnswer.length} other ones`,
        );
      }
      rows.push({ scenario: name, ...(await measure(pgFloor.child.pid, { method: 'GET', url })), against: 'hello' });
    }
  } finally {
    await stopProcess(pgFloor.child);
  }
};
