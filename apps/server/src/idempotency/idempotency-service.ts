import { createHash } from 'node:crypto';

import { WriteSafetyCode } from '@sales-order/contract';
import canonicalize from 'canonicalize';
import type { ZodType } from 'zod';

import { isLockNotAvailable } from '../db/database-errors.js';
import type { Db } from '../db/transactions.js';
import { DomainError, unprocessable } from '../errors/domain-error.js';
import { idempotencyRepository } from './idempotency-repository.js';

/**
 * Idempotency-Key with Stripe's semantics: per (caller, key), the first successful result is
 * stored in the same transaction as the work; a retry with the same request gets that result
 * again and does nothing, the same key with another request is refused, a retry while the
 * first still runs waits for it (bounded) and then gets its result. A failure stores nothing.
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

export interface IdempotentRequest {
  /** The caller's identity, method and subject together (auth/access-context.ts identityOf): keys of different callers never meet. */
  subject: string;
  key: string;
  /** The validated request; its canonical JSON is the fingerprint a retry must match. */
  request: unknown;
}

/** Handed to the use case, which uses both inside its own transaction. */
export interface IdempotencyGuard {
  /** The transaction's first write: takes the key, or waits for whoever holds it. */
  claim(tx: Db): Promise<void>;
  /**
   * The claimed key: a create's statement stores the result a retry will get in its row
   * (`idempotency_keys.result`), in the same statement that settles what the result says.
   */
  readonly claimed: { subject: string; key: string };
  /** Stores the result a retry will get, as the transaction's last write (a use case that knows it before). */
  complete(tx: Db, result: unknown): Promise<void>;
}

export interface IdempotentOutcome<T> {
  result: T;
  /** True when the result is a stored one and nothing was done now. */
  replayed: boolean;
}

/** A key claimed in the caller's transaction, or the result committed with it earlier. */
export type KeyInTransaction<T> = { claimed: IdempotencyGuard } | { stored: T };

/** Another request committed the key between our look-up and our claim. */
class KeyCommittedMeanwhile extends Error {}

/** The request holding the key did not finish within the wait. */
class KeyStillHeld extends Error {}

const fingerprintOf = (request: unknown): string =>
  createHash('sha256')
    .update(canonicalize(request) ?? '')
    .digest('hex');

const keyReused = (key: string) =>
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

export const createIdempotencyService = (db: Db, { ttlHours, waitSeconds, waitSliceMs }: IdempotencyOptions) => {
  const replay = async <T>(subject: string, key: string, fingerprint: string, schema: ZodType<T>) => {
    const stored = await idempotencyRepository.findLive(db, subject, key);
    if (!stored || stored.result === null) return undefined;
    if (stored.fingerprint !== fingerprint) throw keyReused(key);
    return schema.parse(stored.result);
  };

  return {
    /**
     * Claims one key inside the caller's open transaction `tx` (one of several a request may
     * claim, as the orders of a bulk create do): the key is claimed for this request, or it was
     * committed earlier with the same request and its result is returned, or with another
     * request (422 `idempotency_key_reused`). A key another transaction still holds is waited
     * for up to one lock wait; then 409 in progress (the caller retries the whole request).
     * The returned guard's claim does nothing: the key is claimed already.
     */
    async claimWithin<T>(
      tx: Db,
      { subject, key, request }: IdempotentRequest,
      schema: ZodType<T>,
    ): Promise<KeyInTransaction<T>> {
      const fingerprint = fingerprintOf(request);
      const previous = await idempotencyRepository.setLockTimeout(tx, `${waitSliceMs}ms`);
      const claimed = await idempotencyRepository
        .claim(tx, { subject, key, fingerprint, ttlHours })
        .catch((error: unknown) => {
          throw isLockNotAvailable(error) ? stillInProgress(waitSeconds) : error;
        });
      await idempotencyRepository.setLockTimeout(tx, previous);
      if (claimed)
        return {
          claimed: {
            claim: () => Promise.resolve(),
            claimed: { subject, key },
            complete: (db, result) => idempotencyRepository.storeResult(db, subject, key, result),
          },
        };
      // Committed by another transaction (the claim waited for it), or claimed earlier in this one.
      const stored = await idempotencyRepository.findLive(tx, subject, key);
      if (stored && stored.fingerprint !== fingerprint) throw keyReused(key);
      if (!stored || stored.result === null) throw stillInProgress(1);
      return { stored: schema.parse(stored.result) };
    },

    /**
     * Runs `perform` once per (subject, key): `perform` must call the guard's claim and
     * complete inside the transaction of its writes. `schema` reads a stored result back.
     */
    async run<T>(
      { subject, key, request }: IdempotentRequest,
      schema: ZodType<T>,
      perform: (guard: IdempotencyGuard) => Promise<T>,
    ): Promise<IdempotentOutcome<T>> {
      const fingerprint = fingerprintOf(request);
      const deadline = Date.now() + waitSeconds * 1000;
      // This attempt's lock wait: what is left of the whole wait, at most one slice.
      let sliceMs = waitSliceMs;
      const guard: IdempotencyGuard = {
        claim: async (tx) => {
          const previous = await idempotencyRepository.setLockTimeout(tx, `${sliceMs}ms`);
          const claimed = await idempotencyRepository
            .claim(tx, { subject, key, fingerprint, ttlHours })
            .catch((error: unknown) => {
              throw isLockNotAvailable(error) ? new KeyStillHeld() : error;
            });
          if (!claimed) throw new KeyCommittedMeanwhile();
          await idempotencyRepository.setLockTimeout(tx, previous);
        },
        claimed: { subject, key },
        complete: (tx, result) => idempotencyRepository.storeResult(tx, subject, key, result),
      };
      // A committed key answers at once, without a transaction; a key committed while this
      // request ran (the concurrent retry) answers after its claim has waited for it. A wait
      // cut by the end of a slice starts again in a new transaction until the deadline.
      let committedMeanwhile = 0;
      for (;;) {
        const stored = await replay(subject, key, fingerprint, schema);
        if (stored !== undefined) return { result: stored, replayed: true };
        sliceMs = Math.min(waitSliceMs, deadline - Date.now());
        if (sliceMs < 1) throw stillInProgress(waitSeconds);
        try {
          return { result: await perform(guard), replayed: false };
        } catch (error) {
          if (error instanceof KeyStillHeld) continue;
          if (!(error instanceof KeyCommittedMeanwhile)) throw error;
          // Committed, then expired and purged within a moment: vanishingly rare; the caller retries.
          committedMeanwhile += 1;
          if (committedMeanwhile === 2) throw stillInProgress(1);
        }
      }
    },
  };
};

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
