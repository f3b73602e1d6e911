import { systemAccess } from '../auth/access-context.js';
import { transactionPort } from '../db/transactions.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { createOrder } from '../orders/create-order.js';
import { DEFAULT_ORDER_NUMBER_MAX_AHEAD } from '../orders/numbering.js';
import { formatCalendarDate } from '../shared/calendar.js';
import { customers, fieldOfficers, financialYears, licences, LOCATIONS, PORTS, products } from './demo-data.js';

export interface SeedResult {
  seeded: boolean;
  counts?: Record<string, number>;
}

/**
 * Loads the demo master data and a few orders into an empty database, dated around `today`
 * (a calendar date: today in the business's time zone); does nothing when customers already
 * exist, so it is safe to run at every start.
 */
export const seedDemoData = async (prisma: PrismaClient, today: Date): Promise<SeedResult> => {
  if ((await prisma.customer.count()) > 0) return { seeded: false };

  const productList = products();
  const counts = await prisma.$transaction(
    async (tx) => {
      await tx.location.createMany({ data: LOCATIONS });
      await tx.financialYear.createMany({ data: financialYears(today) });
      const customerRows = customers();
      await tx.customer.createMany({ data: customerRows });
      const created = await tx.product.createManyAndReturn({
        data: productList.map(({ code, name, requiresLicence, active }) => ({ code, name, requiresLicence, active })),
        select: { id: true, code: true },
      });
      const productIdByCode = new Map(created.map((product) => [product.code, product.id]));
      const productId = (index: number) => productIdByCode.get(productList[index]!.code)!;
      const packsizes = productList.flatMap((product, index) =>
        product.packs.map((name) => ({ productId: productId(index), name })),
      );
      await tx.packsize.createMany({ data: packsizes });
      const licenceRows = licences(productList, today).map(({ productIndex, licensedQuantity, ...licence }) => ({
        ...licence,
        productId: productId(productIndex),
        licensedQuantity: licensedQuantity === null ? null : String(licensedQuantity),
      }));
      await tx.productLicence.createMany({ data: licenceRows });
      const officers = fieldOfficers();
      await tx.fieldOfficer.createMany({ data: officers });
      await tx.port.createMany({ data: PORTS });
      return {
        locations: LOCATIONS.length,
        financial_years: 4,
        customers: customerRows.length,
        products: productList.length,
        packsizes: packsizes.length,
        product_licences: licenceRows.length,
        field_officers: officers.length,
        ports: PORTS.length,
      };
    },
    { timeout: 60_000 },
  );

  // A few orders through the real use case, so numbering, totals and licence quotas start
  // from a realistic state: the first two confirmed (product 2's quota of 150 is 100 used), the
  // third a draft.
  const orderDeps = { transactions: transactionPort(prisma), orderNumberMaxAhead: DEFAULT_ORDER_NUMBER_MAX_AHEAD };
  // The seed acts as the service itself: every location, every permission.
  const seeder = systemAccess('demo-seed');
  const date = formatCalendarDate(today);
  const packsizeOf = async (productId: number) =>
    (await prisma.packsize.findFirstOrThrow({ where: { productId }, orderBy: { id: 'asc' } })).id;
  await createOrder(orderDeps, seeder, {
    customer_id: 1,
    location_id: 1,
    sales_order_date: date,
    remarks: 'Demo order: first delivery of the season',
    details: [
      { product_id: 1, packsize_id: await packsizeOf(1), quantity: 40, rate: 455.5 },
      { product_id: 6, packsize_id: await packsizeOf(6), quantity: 12, rate: 1260 },
    ],
    other_charges: [{ description: 'Carriage', amount: 850 }],
    status: 'confirmed',
    acknowledge_warnings: true,
  });
  await createOrder(orderDeps, seeder, {
    customer_id: 2,
    location_id: 1,
    sales_order_date: date,
    details: [{ product_id: 2, packsize_id: await packsizeOf(2), quantity: 100, rate: 310.25 }],
    other_charges: [{ description: 'Trade discount', amount: -500 }],
    status: 'confirmed',
    acknowledge_warnings: true,
  });
  await createOrder(orderDeps, seeder, {
    customer_id: 3,
    location_id: 2,
    sales_order_date: date,
    details: [
      { product_id: 7, quantity: 3, rate: 33.333 },
      { product_id: 8, quantity: 10.5, rate: 120 },
    ],
  });
  return { seeded: true, counts: { ...counts, sales_orders: 3 } };
};
