/** PUT order: every line replaced, 5 lines and 500 lines. */
import { create500Body, createBody, fiveLines, type Lines } from './bodies.js';
import { connections, wanted } from './options.js';
import type { Scenario } from './rows.js';

/**
 * Orders for the PUT scenarios, one per connection so that the writers do not queue on one
 * order's lock: each PUT replaces every line (two versions of them, in turn).
 */
const putOrders = async (createOrder: (body: unknown) => Promise<number>, lines: Lines) => {
  const ids: number[] = [];
  for (let index = 0; index < connections; index += 1) ids.push(await createOrder({ ...createBody, details: lines }));
  return ids.flatMap((id) =>
    [1, 2].map((rate) => ({
      path: `/api/sales-orders/${id}`,
      body: { details: lines.map((line) => ({ ...line, rate: line.rate * rate })) },
    })),
  );
};

/** The wanted PUT rows' requests, made when the service is prepared. */
export const prepareUpdates = async (createOrder: (body: unknown) => Promise<number>) => ({
  putFive: wanted('PUT order (5 lines replaced)') ? await putOrders(createOrder, fiveLines) : [],
  putFiveHundred: wanted('PUT order (500 lines replaced)') ? await putOrders(createOrder, create500Body.details) : [],
});

export const updateScenarios = ({
  origin,
  putFive,
  putFiveHundred,
}: { origin: string } & Awaited<ReturnType<typeof prepareUpdates>>): Scenario[] => [
  {
    name: 'PUT order (5 lines replaced)',
    against: 'hello',
    method: 'PUT',
    url: origin,
    rotate: putFive,
  },
  {
    name: 'PUT order (500 lines replaced)',
    against: 'update',
    method: 'PUT',
    url: origin,
    rotate: putFiveHundred,
  },
];
