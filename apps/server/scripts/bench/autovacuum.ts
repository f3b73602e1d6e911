import pg from 'pg';

/**
 * What autovacuum would have done by now, done between the bench's rows when the server runs
 * without it (CI's PostgreSQL sets `autovacuum = off`). Without it the statistics of a table
 * stay those of its first rows: the order's other charges, a few demo rows when the bench
 * starts, are tens of thousands after the write rows, and a plan a pooled connection cached for
 * its prepared GET while the table was one page scans all of them on every read (the plan is
 * made again only when the table's statistics change). A production server analyses a table
 * once it has changed by autovacuum's thresholds; so does this, with PostgreSQL's defaults:
 * ANALYZE past 50 + 10 % of its rows changed since the last one, VACUUM (ANALYZE) past 50 + 20 %
 * of them dead or 1,000 + 20 % inserted since the last vacuum.
 */
export interface AutovacuumStandIn {
  /** Analyses (and vacuums) the tables past the thresholds now; nothing when the server runs autovacuum. */
  settle: () => Promise<void>;
  /** One line for the bench's notes: what was done, and the time it took (outside every measurement). */
  describe: () => string | undefined;
}

interface TableState {
  name: string;
  vacuum: boolean;
}

const PAST_THRESHOLDS = `
  SELECT name, vacuum FROM (
    SELECT format('%I.%I', s.schemaname, s.relname) AS name,
           s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0) AS stale,
           (s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0)
             OR s.n_ins_since_vacuum > 1000 + 0.2 * greatest(c.reltuples, 0)) AS vacuum
    FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid) t
  WHERE stale OR vacuum
  ORDER BY name`;

/** The stand-in for the database at `url`; on a server that runs autovacuum, settle does nothing. */
export const autovacuumStandIn = async (url: string): Promise<AutovacuumStandIn> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let on: boolean;
  try {
    on = (await client.query<{ autovacuum: string }>('SHOW autovacuum')).rows[0]!.autovacuum === 'on';
  } finally {
    await client.end();
  }
  let analysed = 0;
  let vacuumed = 0;
  let ms = 0;
  return {
    settle: async () => {
      if (on) return;
      const started = performance.now();
      const session = new pg.Client({ connectionString: url });
      await session.connect();
      try {
        // The counters a backend has not flushed yet (at most a second old) count next time.
        for (const { name, vacuum } of (await session.query<TableState>(PAST_THRESHOLDS)).rows) {
          await session.query(vacuum ? `VACUUM (ANALYZE) ${name}` : `ANALYZE ${name}`);
          analysed += 1;
          if (vacuum) vacuumed += 1;
        }
      } finally {
        await session.end();
      }
      ms += performance.now() - started;
    },
    describe: () =>
      on
        ? undefined
        : `autovacuum is off on this server: between rows the bench analysed ${analysed} tables past its ` +
          `thresholds (${vacuumed} of them vacuumed too), as autovacuum would have, in ${(ms / 1000).toFixed(1)} s`,
  };
};
