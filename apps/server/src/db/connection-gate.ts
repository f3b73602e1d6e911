import { AsyncLocalStorage } from 'node:async_hooks';

import PQueue from 'p-queue';
import pg from 'pg';

import { waitForTurn } from '../shared/turns.js';

/**
 * Requests wait their turn for a database connection until their deadline, instead of failing
 * after pg-pool's 1 s acquire timeout (which answered 503 to 40 of 100 concurrent creates on an
 * idle database). docs/decisions/load-shedding-at-the-connection-gate.md says the rule:
 *
 * - a checkout waits, first come first served (p-queue, one slot per pooled connection), until a
 *   connection is free or its request's deadline (REQUEST_DEADLINE_MS from the request's arrival)
 *   passes: then it is shed, 503 `overloaded`;
 * - it is shed at once when it could not start before its deadline anyway: when the checkouts
 *   ahead of it, at the connections' recent hold time, would take longer than the time it has
 *   left, or when the queue is at its bound (`bound` below).
 *
 * An outage is not the gate's to judge: a checkout that gets its turn tries the database, and a
 * database that does not answer fails it within DATABASE_CONNECT_TIMEOUT_MS or the statement
 * timeout (503 `database_unavailable`), which frees its turn for the next. (Shedding the queue
 * while the availability monitor reported an outage was tried: on a loaded machine one slow
 * statement flipped it, and a burst then failed as an outage.)
 *
 * pg-pool's own timeout (DATABASE_CONNECT_TIMEOUT_MS) then only bounds opening a new connection:
 * a checkout that holds a slot always finds a pooled connection free or room for a new one.
 */

/** A checkout refused because it could not start before its request's deadline. */
export class DatabaseOverloadedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseOverloadedError';
  }
}

/**
 * What pg-pool raises when its own wait for a free connection of a full pool passed
 * connectionTimeoutMillis: a shed too (the database answers; its connections were all taken).
 * Gated checkouts never wait there; an ungated pool (pg-boss's) does.
 */
const POOL_WAIT_TIMEOUT = 'timeout exceeded when trying to connect';

/** True when `error`, or an error it wraps, is a shed checkout: the gate's, or a pool's own wait. */
export const isDatabaseOverloaded = (error: unknown): boolean => {
  let current: unknown = error;
  for (let depth = 0; typeof current === 'object' && current !== null && depth < 4; depth += 1) {
    if (current instanceof DatabaseOverloadedError) return true;
    if ((current as { message?: unknown }).message === POOL_WAIT_TIMEOUT) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
};

/** The deadline (epoch ms) of the request this code runs for, where a request set one. */
const requestDeadlines = new AsyncLocalStorage<number>();

/** The deadline (epoch ms) of the request this code runs for, if it runs for one. */
export const currentRequestDeadline = (): number | undefined => requestDeadlines.getStore();

/** Runs `work` with `deadline` as its request's deadline for every checkout it makes. */
export const withRequestDeadline = <T>(deadline: number, work: () => T): T => requestDeadlines.run(deadline, work);

/**
 * The queue's bound: no more checkouts wait per pooled connection than could start within
 * REQUEST_DEADLINE_MS if each of those ahead held its connection for only 5 ms (one short
 * statement's round trip): 2,000 per connection, 20,000 with the defaults. Beyond it a checkout
 * cannot start in time whatever the load, and a waiting request holds its memory.
 */
const FASTEST_HOLD_MS = 5;
/** Weight of the newest hold time in the moving average the estimate uses. */
const HOLD_SMOOTHING = 0.1;

export interface ConnectionGate {
  /** Checkouts waiting for a connection now. */
  readonly waiting: number;
  /** The moving average of how long a checkout holds its connection (ms). */
  readonly holdMs: number;
}

interface GateOptions {
  connections: number;
  requestDeadlineMs: number;
}

/** A pg pool whose checkouts pass the gate first; `pool.query` and Prisma's adapter both go through `connect`. */
export const createGatedPool = (
  config: pg.PoolConfig,
  { connections, requestDeadlineMs }: GateOptions,
): { pool: pg.Pool; gate: ConnectionGate } => {
  const slots = new PQueue({ concurrency: connections });
  const bound = connections * Math.ceil(requestDeadlineMs / FASTEST_HOLD_MS);
  let holdMs = 0;

  /** Resolves with the function that gives the slot back, once the checkout may take a connection. */
  const acquire = (): Promise<() => void> => {
    const deadline = requestDeadlines.getStore() ?? Date.now() + requestDeadlineMs;
    const left = deadline - Date.now();
    if (slots.pending >= connections) {
      const ahead = slots.size + 1;
      if (ahead > bound || left <= 0 || (ahead / connections) * holdMs > left) {
        return Promise.reject(
          new DatabaseOverloadedError(
            `${slots.size} database checkouts waiting ahead; this one could not start before its deadline`,
          ),
        );
      }
    }
    return waitForTurn(
      slots,
      left,
      // Its deadline passed while it waited.
      () => new DatabaseOverloadedError('no database connection came free before the request deadline'),
    ).then((done) => {
      const started = performance.now();
      return () => {
        holdMs += HOLD_SMOOTHING * (performance.now() - started - holdMs);
        done();
      };
    });
  };

  class GatedPool extends pg.Pool {
    override connect(): Promise<pg.PoolClient>;
    override connect(
      callback: (
        error: Error | undefined,
        client: pg.PoolClient | undefined,
        done: (release?: Error | boolean) => void,
      ) => void,
    ): void;
    override connect(
      callback?: (
        error: Error | undefined,
        client: pg.PoolClient | undefined,
        done: (release?: Error | boolean) => void,
      ) => void,
    ): Promise<pg.PoolClient> | void {
      const checkedOut = acquire().then(async (giveBack) => {
        let client: pg.PoolClient;
        try {
          client = await super.connect();
        } catch (error) {
          giveBack();
          throw error;
        }
        // pg-pool sets a new release on every checkout: the slot goes back with the connection.
        const release = client.release.bind(client);
        client.release = (destroy?: Error | boolean) => {
          release(destroy);
          giveBack();
        };
        return client;
      });
      if (!callback) return checkedOut;
      checkedOut.then(
        (client) => callback(undefined, client, (release) => client.release(release)),
        (error: Error) => callback(error, undefined, () => {}),
      );
    }
  }

  return {
    pool: new GatedPool(config),
    gate: {
      get waiting() {
        return slots.size;
      },
      get holdMs() {
        return holdMs;
      },
    },
  };
};
