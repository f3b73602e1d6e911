import {
  type BulkCreatedSalesOrders,
  type BulkCreateSalesOrdersBody,
  type BulkOrderError,
  type BulkOrderResult,
  type CreatedSalesOrder,
  CreatedSalesOrderSchema,
  type CreateSalesOrderBody,
  ErrorCode,
  type ErrorDetail,
  MAX_ERROR_DETAILS,
} from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import type { Db } from '../db/transactions.js';
import { DomainError, unprocessable } from '../errors/domain-error.js';
import {
  type EarlierOutcome,
  type IdempotencyGuard,
  type IdempotencyService,
  keyReused,
  sameRequest,
} from '../idempotency/idempotency-service.js';
import { toJsonNumber } from '../shared/money.js';
import { confirmCreated, duplicateNumber, prepareCreate, referencesOf } from './create-order.js';
import { counterAfterSuppliedNumber, orderNumberKey } from './numbering.js';
import { checkReferencesOfEach } from './order-references.js';
import type { OrderDeps } from './order-use-case.js';
import type { PreparedOrder } from './order-write-model.js';
import { isUniqueViolation, orderWriteStore } from './store/order-write-store.js';

/**
 * Batches written in turn although their transactions overlap (an import's chunks): a batch
 * prepares its orders at once, checks their numbers and writes them once the batch before it has
 * written (its insert then waits in the database for the counters that batch holds, so its
 * numbers follow that batch's), and commits only once that batch has committed (when that one
 * failed, this one fails before committing).
 */
export interface WriteTurn {
  /** The batch before: settles once it has written its orders, and once it has committed (rejected: it failed). */
  after?: { written: Promise<unknown>; committed: Promise<unknown> };
  /** Called once this batch's orders are written. */
  written?: () => void;
}

/** What a bulk create needs beyond the single create's dependencies: the orders' own idempotency keys. */
export interface BulkCreateDeps extends OrderDeps {
  idempotency: Pick<IdempotencyService, 'runEach'>;
}

type BulkOrder = BulkCreateSalesOrdersBody['orders'][number];

/** What became of one order of the batch: created (now, or earlier under its key), or refused. */
type Outcome = { order: CreatedSalesOrder } | { error: DomainError };

/** Orders refused once written (a supplied number too far ahead, a refused confirm): the batch is written again without them. */
class RefusedAfterWriting extends Error {
  constructor(readonly refused: ReadonlyMap<number, DomainError>) {
    super('orders refused after they were written');
  }
}

/** How many times a batch is tried again when a number it checked free was taken meanwhile by another request. */
const NUMBER_RACE_RETRIES = 2;

/** An order's refusal as its result says it: its details' paths put under `orders.{index}.`. */
const itemError = (index: number, error: DomainError): BulkOrderError => ({
  code: ErrorCode.unprocessable,
  message: error.message,
  details: error.details.map((detail): ErrorDetail => ({
    ...detail,
    // An order's own key is its field `idempotency_key` (the header's name is the single create's).
    path: `orders.${index}${detail.path === '' ? '' : `.${detail.path === 'idempotency-key' ? 'idempotency_key' : detail.path}`}`,
    index,
  })),
});

/** The create body of a bulk order: everything but its own key. */
const bodyOf = ({ idempotency_key: _key, ...body }: BulkOrder): CreateSalesOrderBody => body;

/** The refusal of an order's data (422): its result says why. Anything else fails the whole request. */
const isRefusal = (error: unknown): error is DomainError =>
  error instanceof DomainError && error.kind === 'unprocessable';

/** The orders' own keys: the first order with each key, the later ones naming the same order, and those refused. */
interface KeyPlan {
  /** The first order (index) with each key, in input order: each key once to the protocol. */
  keyed: number[];
  /** A later order with a key given earlier with the same body: it is that order again. */
  sameAs: Map<number, number>;
  /** A later order with a key given earlier with another body: refused. */
  keyRefused: Map<number, DomainError>;
}

/**
 * The orders' own keys, in the caller's key space (the single create's): each key once to the
 * protocol; a key given again later in the batch makes that order the earlier one again (the
 * same body) or refuses it (another body).
 */
const planKeys = (orders: readonly BulkOrder[], bodies: readonly CreateSalesOrderBody[]): KeyPlan => {
  const firstWithKey = new Map<string, number>();
  const sameAs = new Map<number, number>();
  const keyRefused = new Map<number, DomainError>();
  for (const [index, order] of orders.entries()) {
    const key = order.idempotency_key;
    if (key === undefined) continue;
    const first = firstWithKey.get(key);
    if (first === undefined) firstWithKey.set(key, index);
    else if (sameRequest(bodies[first], bodies[index])) sameAs.set(index, first);
    else keyRefused.set(index, keyReused(key));
  }
  return { keyed: [...firstWithKey.values()], sameAs, keyRefused };
};

/** A number an order supplies itself (not one of its series' next). */
const suppliedNumber = (order: PreparedOrder) =>
  order.numbering?.kind === 'next' ? undefined : order.numbering?.salesOrderNo;

/** The batch as it is worked through: what each order came to, and the orders prepared to be written. */
interface BatchState {
  bodies: readonly CreateSalesOrderBody[];
  outcomes: (Outcome | undefined)[];
  prepared: Map<number, PreparedOrder>;
}

/**
 * Checks and prepares the orders `toPrepare` as the single create does, their references looked
 * up in one statement; an order refused is given its outcome, the others go to `prepared`.
 */
const prepareOrders = async (
  tx: Db,
  access: AccessContext,
  { bodies, outcomes, prepared }: BatchState,
  toPrepare: readonly number[],
): Promise<void> => {
  const references = await checkReferencesOfEach(
    tx,
    toPrepare.map((index) => referencesOf(bodies[index]!)),
  );
  toPrepare.forEach((index, at) => {
    const order = prepareCreate(access, bodies[index]!, references[at]!);
    if (order.problems.length > 0 || !order.value) outcomes[index] = { error: unprocessable(order.problems) };
    else prepared.set(index, order.value);
  });
};

/** Refuses the prepared orders whose supplied number another order already holds (one statement). */
const refuseTakenNumbers = async (tx: Db, { outcomes, prepared }: BatchState): Promise<void> => {
  const taken = await orderWriteStore.takenNumbers(
    tx,
    [...prepared.values()].flatMap((order) => suppliedNumber(order) ?? []),
  );
  for (const [index, order] of prepared) {
    const number = suppliedNumber(order);
    if (number !== undefined && taken.has(number)) {
      outcomes[index] = { error: duplicateNumber(number) };
      prepared.delete(index);
    }
  }
};

/** What one write of the batch came to: orders created, refused before the statement, refused after it. */
interface Written {
  created: Map<number, CreatedSalesOrder>;
  refused: Map<number, DomainError>;
  afterWriting: Map<number, DomainError>;
}

/**
 * Writes the orders `writing` (indexes, in input order) in one statement, refusing those a
 * number supplied earlier in the batch takes, then those its counter or confirm refuses.
 */
const writeOrders = async (
  tx: Db,
  deps: BulkCreateDeps,
  access: AccessContext,
  { bodies, prepared }: BatchState,
  writing: readonly number[],
): Promise<Written> => {
  const refused = new Map<number, DomainError>();
  const claimedNumbers = new Set<string>();
  const inserting = writing.filter((index) => {
    const number = suppliedNumber(prepared.get(index)!);
    if (number === undefined) return true;
    const key = orderNumberKey(number);
    if (claimedNumbers.has(key)) {
      refused.set(index, duplicateNumber(number));
      return false;
    }
    claimedNumbers.add(key);
    return true;
  });
  const stored = await orderWriteStore.insertOrders(
    tx,
    inserting.map((index) => prepared.get(index)!),
    deps.orderNumberMaxAhead,
  );
  const created = new Map<number, CreatedSalesOrder>();
  const afterWriting = new Map<number, DomainError>();
  for (const [at, index] of inserting.entries()) {
    const order = prepared.get(index)!;
    const row = stored[at]!;
    if (order.numbering?.kind === 'supplied-series') {
      // The counter stayed where it was when the number is too far ahead of it.
      const moved = counterAfterSuppliedNumber(row.counter!, order.numbering.sequence, deps.orderNumberMaxAhead);
      if (moved.value === null) {
        afterWriting.set(index, unprocessable(moved.problems));
        continue;
      }
    }
    created.set(index, {
      sales_order_id: row.id,
      order_number: row.salesOrderNo,
      total_amount: toJsonNumber(order.totals.grand_total),
    });
  }
  // Confirms in input order, each seeing the quota the ones before it took.
  for (const [index, order] of created) {
    const body = bodies[index]!;
    if (body.status !== 'confirmed') continue;
    try {
      await confirmCreated(tx, order.sales_order_id, access, body.acknowledge_warnings === true);
    } catch (error) {
      if (!isRefusal(error)) throw error;
      afterWriting.set(index, error);
    }
  }
  return { created, refused, afterWriting };
};

/**
 * Writes the prepared orders and records what each came to. Under reject_failed_rows, orders
 * refused once written are written again without the refused ones, from a savepoint; only a
 * batch with such orders needs one.
 */
const writeBatch = async (
  tx: Db,
  deps: BulkCreateDeps,
  access: AccessContext,
  state: BatchState,
  policy: BulkPolicy,
  turn: WriteTurn | undefined,
): Promise<void> => {
  const { bodies, outcomes, prepared } = state;
  const mayBeRefusedAfterWriting = [...prepared].some(
    ([index, order]) => order.numbering?.kind === 'supplied-series' || bodies[index]!.status === 'confirmed',
  );
  let writing = [...prepared.keys()];
  for (;;) {
    try {
      const written =
        policy === 'reject_failed_rows' && mayBeRefusedAfterWriting
          ? await deps.transactions.withSavepoint(tx, async () => {
              const result = await writeOrders(tx, deps, access, state, writing);
              if (result.afterWriting.size > 0) throw new RefusedAfterWriting(result.afterWriting);
              return result;
            })
          : await writeOrders(tx, deps, access, state, writing);
      turn?.written?.();
      for (const [index, order] of written.created) outcomes[index] = { order };
      for (const [index, error] of [...written.refused, ...written.afterWriting]) outcomes[index] = { error };
      return;
    } catch (error) {
      if (!(error instanceof RefusedAfterWriting)) throw error;
      for (const [index, refusal] of error.refused) outcomes[index] = { error: refusal };
      writing = writing.filter((index) => !error.refused.has(index));
    }
  }
};

type BulkPolicy = NonNullable<BulkCreateSalesOrdersBody['error_policy']>;

/**
 * The batch's answer from what each order came to; under reject_everything a refused order
 * refuses the whole batch (422 naming every refused order, each with its share of the details).
 */
const answerOf = (outcomes: readonly (Outcome | undefined)[], policy: BulkPolicy): BulkCreatedSalesOrders => {
  const results = outcomes.map((outcome, index): BulkOrderResult => {
    if (!outcome) throw new Error(`order ${index} of the batch has no outcome`);
    return 'order' in outcome
      ? { index, status: 'created', order: outcome.order }
      : { index, status: 'failed', error: itemError(index, outcome.error) };
  });
  const refused = results.flatMap((result) => (result.error ? [result.error] : []));
  if (policy === 'reject_everything' && refused.length > 0) {
    // The answer holds MAX_ERROR_DETAILS details: each refused order gets its share, so that
    // every one is named (up to that many orders).
    const share = Math.max(1, Math.floor(MAX_ERROR_DETAILS / refused.length));
    throw unprocessable(
      refused.flatMap((error) => error.details.slice(0, share)),
      `Validation failed: ${refused.length} of ${outcomes.length} orders refused, none created`,
    );
  }
  return { error_policy: policy, created: results.length - refused.length, failed: refused.length, results };
};

/**
 * Creates many orders in one transaction, each exactly as a single create would (its checks,
 * number, history, event and licence quota, in input order), in a number of statements that
 * does not grow with the orders: their references are looked up in one statement, each is
 * prepared by the write model (order-write-model.ts), the numbers they supply are checked in
 * one statement, and the orders are written in one (store/order-write-store.ts insertOrders:
 * each series numbered consecutively in input order). What can refuse an order only once it is
 * written (a supplied series number too far ahead of its counter, a refused confirm of an order
 * created `confirmed`) is checked after that statement; under `reject_failed_rows` the batch is
 * then written again without those orders (from a savepoint), so no number is lost. With
 * `reject_everything` one refused order rolls the whole batch back (422 naming every refused
 * order). An order with an `idempotency_key` is claimed in the caller's key space (the single
 * create's): a key committed earlier with the same order answers that order again. With a
 * guard, the request's own Idempotency-Key is claimed first and the answer stored last.
 * With a `turn` (WriteTurn), the batch writes and commits in turn with the batch before it.
 */
/**
 * The locations a bulk create's answer is about: those of the orders it created (made now or
 * earlier under their own keys); what it stores under the request's Idempotency-Key.
 */
export const locationsOfCreated = (
  { orders }: Pick<BulkCreateSalesOrdersBody, 'orders'>,
  answer: BulkCreatedSalesOrders,
): number[] => [
  ...new Set(answer.results.flatMap(({ index, status }) => (status === 'created' ? [orders[index]!.location_id] : []))),
];

export const bulkCreateOrders = async (
  deps: BulkCreateDeps,
  access: AccessContext,
  { orders, error_policy: policy = 'reject_everything' }: BulkCreateSalesOrdersBody,
  idempotency?: IdempotencyGuard<BulkCreatedSalesOrders>,
  turn?: WriteTurn,
): Promise<BulkCreatedSalesOrders> => {
  const bodies = orders.map(bodyOf);
  const { keyed, sameAs, keyRefused } = planKeys(orders, bodies);

  /**
   * The batch in one transaction: `earlier` says what the keyed orders (`keyed`, in order) had
   * before (a replay, a refusal, or nothing: they run now under `keys`, the guard over them).
   */
  const inTransaction = async (
    tx: Db,
    earlier: readonly EarlierOutcome<CreatedSalesOrder>[],
    keys?: IdempotencyGuard<CreatedSalesOrder>,
  ): Promise<BulkCreatedSalesOrders> => {
    await idempotency?.claim(tx);
    await keys?.claim(tx);
    const state: BatchState = { bodies, outcomes: orders.map(() => undefined), prepared: new Map() };
    const { outcomes } = state;
    for (const [index, error] of keyRefused) outcomes[index] = { error };
    keyed.forEach((index, at) => {
      const before = earlier[at];
      if (before?.kind === 'replayed') outcomes[index] = { order: before.result };
      else if (before?.kind === 'reused') outcomes[index] = { error: before.error };
    });
    // The keyed orders that run now, in order: their results complete their keys.
    const running = keyed.filter((_, at) => earlier[at] === undefined);

    const toPrepare = orders.flatMap((_, index) =>
      outcomes[index] === undefined && !sameAs.has(index) ? [index] : [],
    );
    await prepareOrders(tx, access, state, toPrepare);
    await turn?.after?.written;
    await refuseTakenNumbers(tx, state);
    await writeBatch(tx, deps, access, state, policy, turn);
    for (const [index, first] of sameAs) outcomes[index] = outcomes[first];
    const answer = answerOf(outcomes, policy);
    // The orders' keys: each created order's result is what a retry gets; a refused order's key is let go.
    await keys?.complete(
      tx,
      running.map((index) => {
        const outcome = outcomes[index]!;
        return 'order' in outcome ? outcome.order : undefined;
      }),
    );
    await idempotency?.complete(tx, [answer]);
    await turn?.after?.committed;
    return answer;
  };

  // A number checked free but taken by another request before this batch wrote it: the batch
  // is tried again, and its check then finds that number taken.
  const batch = async (
    earlier: readonly EarlierOutcome<CreatedSalesOrder>[],
    keys?: IdempotencyGuard<CreatedSalesOrder>,
  ): Promise<BulkCreatedSalesOrders> => {
    for (let tries = 0; ; tries += 1) {
      try {
        return await deps.transactions.withTransaction((tx) => inTransaction(tx, earlier, keys));
      } catch (error) {
        if (!isUniqueViolation(error) || tries === NUMBER_RACE_RETRIES) throw error;
      }
    }
  };
  if (keyed.length === 0) return batch([]);
  const { earlier, performed } = await deps.idempotency.runEach(
    access,
    // The fingerprint is the create body's, as a single create with this key would store it.
    keyed.map((index) => ({ key: orders[index]!.idempotency_key!, request: bodies[index] })),
    CreatedSalesOrderSchema,
    (_running, keys, before) => batch(before, keys),
    // A created order is about its location: replayed only to a caller that reaches it now.
    (_order, at) => [bodies[keyed[at]!]!.location_id],
  );
  // Every keyed order was answered before (replayed or refused): the others run on their own.
  return performed ?? batch(earlier);
};
