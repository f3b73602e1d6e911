/**
 * The circuit breaker of webhook endpoints whose receivers hang (docs/decisions/webhook-circuit-breaker.md).
 * An attempt that runs into WEBHOOK_TIMEOUT_MS holds its sending slot for the whole timeout;
 * an endpoint whose attempts keep doing so would hold its share of the slots for as long as
 * its backlog lasts. Its state is two columns of the endpoint (`timeouts_in_a_row`,
 * `circuit_open_until`), written with each attempt's outcome:
 *
 * - closed: fewer than TIMEOUTS_TO_OPEN timeouts in a row; the endpoint has its full share.
 * - open: the last of them ended less than its cooldown ago. The endpoint is parked: its jobs
 *   leave the queue, and a job that arrives for it ends without a send. Its deliveries stay
 *   pending, with their own retry times.
 * - half-open: the cooldown is over. One delivery at a time is sent (a probe), and a process
 *   sends at most probeSlots() probes at once. A probe that gets any answer closes the breaker
 *   and queues the endpoint's pending deliveries again; one that times out opens it again, for
 *   twice the cooldown (at most COOLDOWN_MAX_MS).
 *
 * Only timeouts count: a receiver that answers quickly, even with an error or a refused
 * connection, gives its slot back at once and has the retry schedule for its failures.
 */

/** Timeouts in a row that open the breaker: one endpoint's default share of slots, each held for a whole timeout. */
export const TIMEOUTS_TO_OPEN = 2;
/** The first cooldown; each probe that times out doubles it. */
export const COOLDOWN_FIRST_MS = 30_000;
export const COOLDOWN_MAX_MS = 10 * 60_000;
/** Each cooldown is spread by this share either way, so that endpoints that opened together are not all probed together. */
export const COOLDOWN_JITTER = 0.2;

export type CircuitState = 'closed' | 'open' | 'half-open';

/** Probes a process sends at once: half its sending slots (at least one), so hanging receivers never hold them all. */
export const probeSlots = (concurrency: number) => Math.max(1, Math.floor(concurrency / 2));
