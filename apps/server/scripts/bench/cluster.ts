/**
 * The same database served by two workers (WEB_CONCURRENCY=2, node:cluster; a PostgreSQL server
 * only), for a few scenarios; the single process idles. RSS is the largest worker's peak and the
 * whole cluster's.
 */
import { load } from './load.js';
import { wanted } from './options.js';
import { peakClusterRss, startService, stopProcess } from './processes.js';
import type { Scenario } from './rows.js';
import type { Run } from './run.js';

/** Scenarios run again on WEB_CONCURRENCY=2 workers, by name. */
const CLUSTER_SCENARIOS = [
  'POST calculate-totals',
  'GET order (5 lines)',
  'POST order (5 lines, server numbering, one series)',
];

export const runCluster = async ({ rows, env, standIn, target: { origin, headers } }: Run, scenarios: Scenario[]) => {
  const cluster = startService({ ...env, SEED_DEMO_DATA: 'never', WEB_CONCURRENCY: '2' });
  try {
    const clusterOrigin = await cluster.origin;
    for (const {
      name,
      against,
      floor: _floor,
      pgFloor: _pgFloor,
      unscoped: _unscoped,
      floorTarget: _floorTarget,
      cpuCap: _cpuCap,
      ...scenario
    } of scenarios.filter((each) => CLUSTER_SCENARIOS.includes(each.name) && wanted(each.name))) {
      await standIn?.settle();
      const measured = await peakClusterRss(cluster.child.pid!, () =>
        load({ headers, ...scenario, url: scenario.url.replace(origin, clusterOrigin) }),
      );
      rows.push({
        scenario: `${name} (2 workers)`,
        ...measured.result,
        rssMb: null,
        rssNote: measured.rss,
        against,
      });
    }
  } finally {
    await stopProcess(cluster.child);
  }
};
