import { createHash } from 'node:crypto';

import { WriteSafetyCode } from '@sales-order/contract';
import canonicalize from 'canonicalize';
import type { ZodType } from 'zod';

import type { Db } from '../db/transactions.js';
import { DomainError, unprocessable } from '../errors/domain-error.js';
import { Prisma } from '../generated/prisma/client.js';
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
}

export interface IdempotentRequest {
  /** The authenticated subject: keys of different callers never meet. */
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

/** Another request committed the key between our look-up and our claim. */
class KeyCommittedMeanwhile extends Error {}

/** The request holding the key did not finish within the wait. */
class KeyStillHeld extends Error {}

const fingerprintOf = (request: unknown): string =>
  createHash('sha256')
    .update(canonicalize(request) ?? '')
    .digest('hex');

// PostgreSQL's lock_not_available, raised when lock_timeout ends a wait.
const LOCK_NOT_AVAILABLE = '55P03';

const isLockTimeout = (error: unknown): boolean =>
  error instanceof Prisma.PrismaClientKnownRequestError &&
  JSON.stringify(error.meta ?? {}).includes(LOCK_NOT_AVAILABLE);

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

export const createIdempotencyService = (db: Db, { ttlHours, waitSeconds }: IdempotencyOptions) => {
  const replay = async <T>(subject: string, key: string, fingerprint: string, schema: ZodType<T>) => {
    const stored = await idempotencyRepository.findLive(db, subject, key);
    if (!stored || stored.result === null) return undefined;
    if (stored.fingerprint !== fingerprint) throw keyReused(key);
    return schema.parse(stored.result);
  };

  return {
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
      const guard: IdempotencyGuard = {
        claim: async (tx) => {
          const previous = await idempotencyRepository.setLockTimeout(tx, `${waitSeconds}s`);
          const claimed = await idempotencyRepository
            .claim(tx, { subject, key, fingerprint, ttlHours })
            .catch((error: unknown) => {
              throw isLockTimeout(error) ? new KeyStillHeld() : error;
            });
          if (!claimed) throw new KeyCommittedMeanwhile();
          await idempotencyRepository.setLockTimeout(tx, previous);
        },
        claimed: { subject, key },
        complete: (tx, result) => idempotencyRepository.storeResult(tx, subject, key, result),
      };
      // A committed key answers at once, without a transaction; a key committed while this
      // request ran (the concurrent retry) answers after its claim has waited for it.
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const stored = await replay(subject, key, fingerprint, schema);
        if (stored !== undefined) return { result: stored, replayed: true };
        try {
          return { result: await perform(guard), replayed: false };
        } catch (error) {
          if (error instanceof KeyStillHeld) throw stillInProgress(waitSeconds);
          if (!(error instanceof KeyCommittedMeanwhile)) throw error;
        }
      }
      // Committed, then expired and purged within a moment: vanishingly rare; the caller retries.
      throw stillInProgress(1);
    },
  };
};

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
