import pg from 'pg';

/**
 * A gate on order writes, for a test that must act while an import (or any create) is under
 * way whatever the machine's speed: while it is shut, this test's own connection holds the
 * order-number counters' table (LOCK TABLE ... EXCLUSIVE, as another writer of those rows
 * would), so the next create waits for it while reads go on. Shutting waits for the write in
 * flight to commit. The server's DATABASE_LOCK_TIMEOUT_MS must outlast the longest time shut.
 */
export const orderWriteGate = async (databaseUrl: string | undefined) => {
  const sql = new pg.Client({ connectionString: databaseUrl });
  await sql.connect();
  let shut = false;
  return {
    shut: async () => {
      await sql.query('BEGIN');
      await sql.query('LOCK TABLE sales_order_counters IN EXCLUSIVE MODE');
      shut = true;
    },
    open: async () => {
      if (shut) await sql.query('COMMIT');
      shut = false;
    },
    close: async () => {
      if (shut) await sql.query('ROLLBACK');
      await sql.end();
    },
  };
};
