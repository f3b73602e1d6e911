import { setImmediate } from 'node:timers/promises';

import {
  AccessCode,
  type CreateSalesOrderBody,
  type ErrorDetail,
  ImportCode,
  type ImportResult,
  Permission,
  permissionsForBody,
  salesOrdersContract,
} from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import type { Db } from '../db/transactions.js';
import type { WriteTurn } from '../orders/bulk-create-orders.js';
import type { OrderUseCases } from '../orders/order-use-cases.js';
import { type ImportOrder, locateAll, validateOrder } from './import-file.js';
import { type ImportRow, importStore, type ResultToStore } from './import-store.js';

/**
 * One chunk of an import's orders: checked (prepareChunk), then made through the bulk create
 * (createChunk), in turn with the chunk before it (startChunk). The job that runs chunk after
 * chunk is run-import-chunk.ts.
 */

/** An import's orders, read a chunk at a time (`slice`: `size` orders from position `start`). */
export interface FileOrders {
  total: number;
  slice(start: number, size: number): Promise<ImportOrder[]>;
}

/** A chunk whose orders are being made: settles once they are written, and once committed. */
export interface ChunkUnderWay {
  written: Promise<void>;
  committed: Promise<ResultToStore[]>;
}

/** Orders checked between two turns of the event loop while a chunk is prepared. */
const PREPARE_SLICE = 20;

/** Why an order whose order_ref made an order in an earlier import is skipped. */
const duplicateOf = (
  order: ImportOrder,
  made: { importId: number; orderNumber: string | null },
): ImportResult['errors'][number] => ({
  path: 'order_ref',
  code: ImportCode.duplicateOrderRef,
  message:
    `line ${order.lines[0] ?? 1}: order_ref ${JSON.stringify(order.ref)} already made order ` +
    `${made.orderNumber ?? '(deleted)'} in import ${made.importId}; send allow_duplicates=true to import it again`,
});

/**
 * Each order of an import is made through the bulk create with its own idempotency key, derived
 * from the import and the order's ref, in the starter's key space: a chunk run again after a
 * crash gets the orders it had made back instead of making them twice.
 */
export const importKeyOf = (importId: number, ref: string) => `import:${importId}:${ref}`;

/**
 * Why an order of the file is not even sent to the create: its row's problems, or a permission
 * the single create's route would ask of the import's starter that is not among `permissions`
 * (those it held at the start and still holds now): its own, and what the body's values ask
 * for (status confirmed, acknowledge_warnings, as the contract declares). Undefined when it goes.
 */
const refusalOf = (
  permissions: ReadonlySet<string>,
  order: ImportOrder,
  { body, problems }: ReturnType<typeof validateOrder>,
): ErrorDetail[] | undefined => {
  if (!body || problems.length > 0) return problems;
  const access = salesOrdersContract.createSalesOrder.metadata;
  const missing = [access.permission, ...permissionsForBody(access, body)].filter(
    (permission) => !permissions.has(Permission.all) && !permissions.has(permission),
  );
  if (missing.length === 0) return undefined;
  return [
    {
      path: '',
      message: `${order.locate('')}: this order needs the permission${missing.length > 1 ? 's' : ''} ${missing.join(' and ')}, which the import's starter lacks`,
      code: AccessCode.missingPermission,
    },
  ];
};

/**
 * A bulk item's details as its single create's: the paths without the bulk's `orders.{index}`
 * and no `index`, so that a result names the body's path (then the file's line and column).
 */
const orderDetails = (index: number, details: readonly ErrorDetail[]): ErrorDetail[] =>
  details.map(({ index: _index, ...detail }) => {
    const prefix = `orders.${index}`;
    const path = detail.path.startsWith(prefix) ? detail.path.slice(prefix.length).replace(/^\./, '') : detail.path;
    return { ...detail, path };
  });

/** A chunk checked: its orders, the results of those refused, and the bodies that go to the bulk create. */
export interface PreparedChunk {
  chunk: ImportOrder[];
  results: ResultToStore[];
  sent: { at: number; body: CreateSalesOrderBody }[];
}

/**
 * The chunk of the file's orders from `start`, checked (validateOrder, refusalOf): what goes to
 * the bulk create, and the results of the rest. A few orders at a time, giving the event loop
 * back in between: it runs while the chunk before it is written, and beside requests.
 */
export const prepareChunk = async (
  db: Db,
  row: ImportRow,
  access: AccessContext,
  fileOrders: FileOrders,
  start: number,
  size: number,
): Promise<PreparedChunk> => {
  const chunk = await fileOrders.slice(start, size);
  // An order_ref that made an order in an earlier import of the owner is skipped, unless allowed.
  const earlier = row.allowDuplicates
    ? new Map<string, { importId: number; orderNumber: string | null }>()
    : await importStore.earlierOrdersOf(
        db,
        row.owner,
        row.id,
        chunk.map((order) => order.ref),
      );
  const results: ResultToStore[] = chunk.map((order, offset) => ({
    position: start + offset,
    orderRef: order.ref,
    lines: order.lines,
    status: 'failed',
    salesOrderId: null,
    orderNumber: null,
    errors: [],
  }));
  const sent: PreparedChunk['sent'] = [];
  for (const [at, order] of chunk.entries()) {
    if (at > 0 && at % PREPARE_SLICE === 0) await setImmediate();
    const made = earlier.get(order.ref);
    if (made) {
      results[at]!.errors = [duplicateOf(order, made)];
      continue;
    }
    const validated = validateOrder(order);
    const refused = refusalOf(access.permissions, order, validated);
    if (refused) results[at]!.errors = refused;
    else sent.push({ at, body: validated.body! });
  }
  return { chunk, results, sent };
};

/**
 * A chunk's orders, made (or found again) through the bulk create, in one transaction under
 * `reject_failed_rows`: each order stands alone, as its single create would, and the orders of
 * one series are numbered in the file's order (in turn with the chunk before, `turn`).
 * What a malformed row or a missing permission refuses never reaches it.
 */
const createChunk = async (
  orders: Pick<OrderUseCases, 'bulkCreate'>,
  row: ImportRow,
  access: AccessContext,
  { chunk, results, sent }: PreparedChunk,
  turn: WriteTurn,
): Promise<ResultToStore[]> => {
  if (sent.length === 0) {
    // Nothing to write, but written and done no sooner than the chunk before it.
    await turn.after?.written;
    turn.written?.();
    await turn.after?.committed;
    return results;
  }
  const answer = await orders.bulkCreate(
    access,
    {
      orders: sent.map(({ at, body }) => ({ ...body, idempotency_key: importKeyOf(row.id, chunk[at]!.ref) })),
      error_policy: 'reject_failed_rows',
    },
    undefined,
    turn,
  );
  for (const [index, { at }] of sent.entries()) {
    const outcome = answer.results[index]!;
    const result = results[at]!;
    if (outcome.order) {
      result.status = 'created';
      result.salesOrderId = outcome.order.sales_order_id;
      result.orderNumber = outcome.order.order_number;
    } else result.errors = locateAll(orderDetails(index, outcome.error?.details ?? []), chunk[at]!.locate);
  }
  return results;
};

/**
 * Starts making a chunk's orders, in turn with the chunk before (`before`): a chunk under way,
 * settled once written and once committed (its results).
 */
export const startChunk = (
  orders: Pick<OrderUseCases, 'bulkCreate'>,
  row: ImportRow,
  access: AccessContext,
  prepared: PreparedChunk,
  before?: ChunkUnderWay,
): ChunkUnderWay => {
  let wrote!: () => void;
  let failed!: (error: unknown) => void;
  const written = new Promise<void>((resolve, reject) => {
    wrote = resolve;
    failed = reject;
  });
  const committed = createChunk(orders, row, access, prepared, {
    after: before && { written: before.written, committed: before.committed },
    written: wrote,
  });
  // A chunk that failed before writing fails the one after it before that one writes.
  committed.then(wrote, failed);
  // Each is awaited by the chunk after it or by the job.
  written.catch(() => {});
  committed.catch(() => {});
  return { written, committed };
};
