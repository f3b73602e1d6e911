/** The orders and bodies the scenarios send, on the demo data's master rows. */

export const today = new Date().toISOString().slice(0, 10);
export const fiveLines = [
  { product_id: 1, packsize_id: 1, quantity: 3, rate: 33.333 },
  { product_id: 2, quantity: 2, rate: 10 },
  { product_id: 3, quantity: 1, rate: 5.5 },
  { product_id: 5, quantity: 7, rate: 1.25 },
  { product_id: 6, quantity: 0.5, rate: 1260 },
];
export type Lines = typeof fiveLines;
/**
 * The same five lines on products whose licences set no quota (1: unlimited, 6: none needed):
 * product 1 keeps its packsize on the first line.
 */
export const unlimitedFive = fiveLines.map((line, index) => ({ ...line, product_id: index % 2 === 0 ? 1 : 6 }));
export const totalsBody = { details: fiveLines, other_charges: [{ amount: 150 }] };
export const createBody = {
  customer_id: 12,
  sales_order_date: today,
  location_id: 1,
  details: fiveLines,
  other_charges: [{ description: 'Freight', amount: 0 }],
};
/** The same order with 500 lines: a create's cost should not grow with its lines much. */
export const create500Body = {
  ...createBody,
  details: Array.from({ length: 500 }, (_, index) => fiveLines[index % fiveLines.length]!),
};
