import { createHash } from 'node:crypto';

import { WriteSafetyCode } from '@sales-order/contract';
import canonicalize from 'canonicalize';
import type { ZodType } from 'zod';

import type { AccessContext } from '../auth/access-context.js';
import { type Scope, scopeOf } from '../auth/scope.js';
import { isLockNotAvailable } from '../db/database-errors.js';
import type { SqlDb } from '../db/sql-db.js';
import type { Db } from '../db/transactions.js';
import { DomainError, unprocessable } from '../errors/domain-error.js';
import { idempotencyStore } from './idempotency-store.js';
import { keySpaceOf } from './key-space.js';

/**
 * Idempotency-Key with Stripe's semantics: per (caller, key), the first successful result is
 * stored in the same transaction as the work; a retry with the same request gets that result
 * again and does nothing, the same key with another request is refused, a retry while the
 * first still runs waits for it (bounded) and then gets its result. A failure stores nothing.
 * One protocol for every idempotent write, for one key or many in one transaction: `run` /
 * `runEach` look the keys up, the guard claims them first and completes them last, each in one
 * statement (idempotency-store.ts, the only writer of idempotency_keys).
 *
 * A stored result is an answer about orders, kept with the locations it is about (`locationsOf`):
 * it is replayed only to a caller whose scope covers them now (scopeOf(caller), applied by the
 * store). To a caller narrowed since, the key answers as a key used with another request (422
 * idempotency_key_reused): it cannot be used again, and it tells nothing of what it made.
 */

export interface IdempotencyOptions {
  ttlHours: number;
  /** How long a retry waits for the first request with its key before answering 409. */
  waitSeconds: number;
  /**
   * The longest single lock wait (DATABASE_LOCK_TIMEOUT_MS, which configuration keeps below the
   * statement timeout): the wait for a key in flight is a series of lock waits this long, each
   * in a transaction of its own, so no statement outlives the statement timeout.
   */
  waitSliceMs: number;
}

/**
 * Who sends the requests: keys are in its key space (key-space.ts: its identity, an API key's
 * rotation family; keys of different callers never meet), and stored results are replayed within its
 * scope now (scopeOf).
 */
export type IdempotentCaller = Pick<AccessContext, 'method' | 'subject' | 'locations' | 'keyFamily'>;

/** The locations a result is about (a created order's location), by the index of its request in the list. */
export type LocationsOf<T> = (result: T, index: number) => readonly number[];

export interface IdempotentRequest {
  key: string;
  /** The validated request; its canonical JSON is the fingerprint a retry must match. */
  request: unknown;
}

/**
 * The one protocol of every idempotent write (POST /sales-orders, the transitions, an import's
 * orders, a bulk create's items): handed to the use case, which uses both inside the
 * transaction of its writes, whatever the number of keys (one statement each).
 */
export interface IdempotencyGuard<T = unknown> {
  /** The transaction's first write: takes every key, or waits (bounded) for whoever holds one. */
  claim(tx: SqlDb): Promise<void>;
  /**
   * The transaction's last write: stores the result a retry will get for each key, in the order
   * of the requests the guard claims (undefined: that request stored nothing, its key is let go).
   */
  complete(tx: SqlDb, results: readonly (T | undefined)[]): Promise<void>;
}

export interface IdempotentOutcome<T> {
  result: T;
  /** True when the result is a stored one and nothing was done now. */
  replayed: boolean;
}

/** What a request of a list had before it ran: a stored result, or a refusal of its key; undefined: nothing (it runs now). */
export type EarlierOutcome<T> = { kind: 'replayed'; result: T } | { kind: 'reused'; error: DomainError } | undefined;

/** Another request committed the key between our look-up and our claim. */
class KeyCommittedMeanwhile extends Error {}

/** The request holding the key did not finish within the wait. */
class KeyStillHeld extends Error {}

const fingerprintOf = (request: unknown): string =>
  createHash('sha256')
    .update(canonicalize(request) ?? '')
    .digest('hex');

/** Whether two requests are the same to an Idempotency-Key: their fingerprints match. */
export const sameRequest = (a: unknown, b: unknown): boolean => fingerprintOf(a) === fingerprintOf(b);

export const keyReused = (key: string) =>
  unprocessable(
    [
      {
        path: 'idempotency-key',
        message: `the key "${key}" was already used with a different request; send a new key for a new order`,
        code: WriteSafetyCode.idempotencyKeyReused,
      },
    ],
    'Idempotency-Key reused with a different request',
  );

const stillInProgress = (retryAfterSeconds: number) =>
  new DomainError(
    'conflict',
    'A request with this Idempotency-Key is still in progress',
    [
      {
        path: 'idempotency-key',
        message: 'the first request with this key has not finished; retry later with the same key and body',
        code: WriteSafetyCode.idempotencyRequestInProgress,
      },
    ],
    retryAfterSeconds,
  );

type KeyedRequest = IdempotentRequest & { subject: string; fingerprint: string };

export const createIdempotencyService = (db: Db, { ttlHours, waitSeconds, waitSliceMs }: IdempotencyOptions) => {
  /**
   * What each request already has: a stored result (a replay), a refusal (another request under
   * its key, or a result outside the caller's scope now), or nothing.
   */
  const earlier = async <T>(requests: readonly KeyedRequest[], scope: Scope, schema: ZodType<T>) => {
    const stored = await idempotencyStore.findLive(db, requests, scope);
    const byKey = new Map(stored.map((row) => [`${row.subject}\n${row.key}`, row]));
    return requests.map(({ subject, key, fingerprint }): EarlierOutcome<T> => {
      const row = byKey.get(`${subject}\n${key}`);
      if (!row || row.result === null) return undefined;
      if (row.fingerprint !== fingerprint || !row.inScope) return { kind: 'reused', error: keyReused(key) };
      return { kind: 'replayed', result: schema.parse(row.result) };
    });
  };

  /**
   * Runs `perform` once per (subject, key) of a list of requests: those with a stored result
   * are replayed, those whose key was used with another request are refused, and `perform` is
   * given the others (their indexes, in list order), a guard over their keys, whose claim
   * and complete it calls inside the transaction of its writes, and what the rest had before
   * (a request of a list whose answer includes them: a bulk create's). A key committed by another
   * request meanwhile (the concurrent retry) is found after the claim has waited for it, and
   * the list is looked at again; a wait cut by the end of a slice starts again in a new
   * transaction until the deadline. `schema` reads a stored result back.
   */
  const runEach = async <T, R>(
    caller: IdempotentCaller,
    requests: readonly IdempotentRequest[],
    schema: ZodType<T>,
    perform: (
      pending: readonly number[],
      guard: IdempotencyGuard<T>,
      earlier: readonly EarlierOutcome<T>[],
    ) => Promise<R>,
    locationsOf: LocationsOf<T>,
  ): Promise<{ earlier: EarlierOutcome<T>[]; performed: R | undefined }> => {
    const subject = keySpaceOf(caller);
    const scope = scopeOf(caller);
    const keyed = requests.map((request) => ({ ...request, subject, fingerprint: fingerprintOf(request.request) }));
    if (new Set(keyed.map(({ subject, key }) => `${subject}\n${key}`)).size !== keyed.length)
      throw new Error('each request of a list needs a key of its own');
    const deadline = Date.now() + waitSeconds * 1000;
    let committedMeanwhile = 0;
    for (;;) {
      const found = await earlier(keyed, scope, schema);
      const pending = found.flatMap((outcome, index) => (outcome === undefined ? [index] : []));
      if (pending.length === 0) return { earlier: found, performed: undefined };
      // This attempt's lock wait: what is left of the whole wait, at most one slice.
      const sliceMs = Math.min(waitSliceMs, deadline - Date.now());
      if (sliceMs < 1) throw stillInProgress(waitSeconds);
      const claiming = pending.map((index) => keyed[index]!);
      const guard: IdempotencyGuard<T> = {
        claim: async (tx) => {
          const claimed = await idempotencyStore
            .claim(tx, claiming, { ttlHours, lockTimeout: `${sliceMs}ms` })
            .catch((error: unknown) => {
              throw isLockNotAvailable(error) ? new KeyStillHeld() : error;
            });
          if (claimed < claiming.length) throw new KeyCommittedMeanwhile();
        },
        complete: (tx, results) =>
          idempotencyStore.complete(
            tx,
            claiming.map(({ key }, index) => {
              const result = results[index];
              return {
                subject,
                key,
                result,
                locations: result === undefined ? [] : locationsOf(result, pending[index]!),
              };
            }),
          ),
      };
      try {
        return { earlier: found, performed: await perform(pending, guard, found) };
      } catch (error) {
        if (error instanceof KeyStillHeld) continue;
        if (!(error instanceof KeyCommittedMeanwhile)) throw error;
        // Committed, then expired and purged within a moment: vanishingly rare; the caller retries.
        committedMeanwhile += 1;
        if (committedMeanwhile === 2) throw stillInProgress(1);
      }
    }
  };

  return {
    runEach,

    /**
     * Runs `perform` once per (subject, key): a committed key answers at once with its stored
     * result (or 422 for another request under it), without a transaction; otherwise `perform`
     * runs, calling the guard's claim and complete inside the transaction of its writes.
     */
    async run<T>(
      caller: IdempotentCaller,
      request: IdempotentRequest,
      schema: ZodType<T>,
      perform: (guard: IdempotencyGuard<T>) => Promise<T>,
      locationsOf: (result: T) => readonly number[],
    ): Promise<IdempotentOutcome<T>> {
      const {
        earlier: [before],
        performed,
      } = await runEach(caller, [request], schema, (_pending, guard) => perform(guard), locationsOf);
      if (before?.kind === 'reused') throw before.error;
      if (before?.kind === 'replayed') return { result: before.result, replayed: true };
      return { result: performed as T, replayed: false };
    },
  };
};

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
