/**
 * Deliveries: POST /sales-orders/{id}/deliveries of 5 lines on confirmed 5-line orders, bound on
 * its CPU per request at 1.5 x the 5-line create's; and GET order of a confirmed 5-line order
 * with 10 recorded deliveries beside the same read of one without any, back to back, bound at
 * 1.3 x its cost (the other's req/s over its own).
 */
import { createBody, today, unlimitedFive } from './bodies.js';
import { connections, seconds } from './options.js';
import { CREATE_ROW, type Scenario } from './rows.js';
import type { Target } from './target.js';

export const DELIVERY_ROW = 'POST delivery (5 lines, of a confirmed 5-line order)';
const READ_WITHOUT_ROW = 'GET order (5 lines, confirmed, no deliveries)';
const READ_WITH_ROW = 'GET order (5 lines, confirmed, 10 deliveries)';
/** Targets: the delivery's CPU at most 1.5 x a 5-line create's; the read's cost at most 1.3 x without deliveries. */
const DELIVERY_CPU_BOUND = 1.5;
const READ_COST_BOUND = 1.3;
/**
 * What a delivery takes of each line: the same on every line (so the lines' order does not
 * matter), within the smallest line's 0.5 four times over for the delivery row, ten times over
 * for the read's order.
 */
const ROW_QUANTITY = 0.125;
const DELIVERIES_PER_ORDER = 4;
const READ_QUANTITY = 0.05;
const READ_DELIVERIES = 10;

type Setup = Pick<Target, 'origin' | 'setupCall'>;

/** A confirmed order of the five lines on products without a quota (no warning): its id and its lines' ids. */
const confirmedOrder = async ({ origin, setupCall }: Setup) => {
  const created = (await setupCall(`${origin}/api/sales-orders`, 201, {
    ...createBody,
    details: unlimitedFive,
    status: 'confirmed',
  })) as { data: { sales_order_id: number } };
  const id = created.data.sales_order_id;
  const read = (await setupCall(`${origin}/api/sales-orders/${id}`, 200)) as {
    data: { details: { sales_order_detail_id: number }[] };
  };
  return { id, lineIds: read.data.details.map((line) => line.sales_order_detail_id) };
};

const deliveryBody = (lineIds: number[], quantity: number) => ({
  delivery_date: today,
  reference: 'bench',
  lines: lineIds.map((lineId) => ({ sales_order_detail_id: lineId, quantity })),
});

/**
 * The delivery row's requests: confirmed orders enough for twice the 5-line create's rate over
 * the scenario's time (each takes DELIVERIES_PER_ORDER deliveries, in turn), made before it.
 */
const deliveryRequests = async (target: Setup & Pick<Target, 'createRate'>) => {
  const wantedOrders = Math.max(
    connections * 2,
    Math.ceil(((target.createRate() ?? 1_000) * seconds * 2) / DELIVERIES_PER_ORDER),
  );
  const orders: Awaited<ReturnType<typeof confirmedOrder>>[] = [];
  while (orders.length < wantedOrders)
    orders.push(...(await Promise.all(Array.from({ length: 16 }, () => confirmedOrder(target)))));
  const round = orders.map(({ id, lineIds }) => ({
    path: `/api/sales-orders/${id}/deliveries`,
    body: deliveryBody(lineIds, ROW_QUANTITY),
  }));
  return { rotate: Array.from({ length: DELIVERIES_PER_ORDER }, () => round).flat() };
};

/** A confirmed order with `deliveries` recorded deliveries of all five lines: its GET. */
const readOf = async (target: Setup, deliveries: number) => {
  const { id, lineIds } = await confirmedOrder(target);
  for (let index = 0; index < deliveries; index += 1)
    await target.setupCall(
      `${target.origin}/api/sales-orders/${id}/deliveries`,
      201,
      deliveryBody(lineIds, READ_QUANTITY),
    );
  return { url: `${target.origin}/api/sales-orders/${id}` };
};

export const deliveryScenarios = (target: Target): Scenario[] => [
  {
    name: DELIVERY_ROW,
    against: 'bound',
    bound: { row: CREATE_ROW, label: "the 5-line create's", on: 'cpu', at: DELIVERY_CPU_BOUND },
    method: 'POST',
    url: target.origin,
    prepare: () => deliveryRequests(target),
  },
  {
    name: READ_WITHOUT_ROW,
    against: 'read',
    method: 'GET',
    url: target.origin,
    prepare: () => readOf(target, 0),
  },
  {
    name: READ_WITH_ROW,
    against: 'bound',
    bound: { row: READ_WITHOUT_ROW, label: 'without deliveries', on: 'cost', at: READ_COST_BOUND },
    method: 'GET',
    url: target.origin,
    prepare: () => readOf(target, READ_DELIVERIES),
  },
];
