import type { PrismaClient } from '../../src/generated/prisma/client.js';

const day = (text: string) => new Date(`${text}T00:00:00.000Z`);

/** A date inside the current fixture financial year (FY2026-27, July to June). */
export const ORDER_DATE = '2026-11-15';
/** A date inside the previous fixture financial year (FY2025-26). */
export const PREVIOUS_YEAR_DATE = '2026-03-10';

/**
 * The master data tests build on, written as the host ERP would write it: two active
 * locations and an inactive one, two financial years and an inactive one, customers and
 * products (active and not) with their packsizes.
 */
export const createFixtures = async (prisma: PrismaClient) => {
  const [dhaka, chattogram, closedDepot] = await Promise.all([
    prisma.location.create({ data: { code: 'DHK', name: 'Dhaka' } }),
    prisma.location.create({ data: { code: 'CTG', name: 'Chattogram' } }),
    prisma.location.create({ data: { code: 'RNG', name: 'Rangpur (closed)', active: false } }),
  ]);
  const [currentYear, previousYear, inactiveYear] = await Promise.all([
    prisma.financialYear.create({
      data: { code: 'FY2026-27', startDate: day('2026-07-01'), endDate: day('2027-06-30') },
    }),
    prisma.financialYear.create({
      data: { code: 'FY2025-26', startDate: day('2025-07-01'), endDate: day('2026-06-30') },
    }),
    prisma.financialYear.create({
      data: { code: 'FY2020-21', startDate: day('2020-07-01'), endDate: day('2021-06-30'), active: false },
    }),
  ]);
  const [customer, otherCustomer, inactiveCustomer] = await Promise.all([
    prisma.customer.create({ data: { code: 'C001', name: 'Rahman Traders' } }),
    prisma.customer.create({ data: { code: 'C002', name: 'Karim Agro Centre' } }),
    prisma.customer.create({ data: { code: 'C003', name: 'Closed Store', active: false } }),
  ]);
  const [product, otherProduct, inactiveProduct] = await Promise.all([
    prisma.product.create({ data: { code: 'P001', name: 'Cypermethrin 10 EC', requiresLicence: true } }),
    prisma.product.create({ data: { code: 'P002', name: 'Urea 46% N' } }),
    prisma.product.create({ data: { code: 'P003', name: 'Discontinued Powder', active: false } }),
  ]);
  const [packsize, otherPacksize, inactivePacksize] = await Promise.all([
    prisma.packsize.create({ data: { productId: product.id, name: '500 ml' } }),
    prisma.packsize.create({ data: { productId: otherProduct.id, name: '50 kg' } }),
    prisma.packsize.create({ data: { productId: product.id, name: '5 L (withdrawn)', active: false } }),
  ]);
  return {
    locations: { dhaka, chattogram, closedDepot },
    years: { currentYear, previousYear, inactiveYear },
    customers: { customer, otherCustomer, inactiveCustomer },
    products: { product, otherProduct, inactiveProduct },
    packsizes: { packsize, otherPacksize, inactivePacksize },
  };
};

export type Fixtures = Awaited<ReturnType<typeof createFixtures>>;

/** A valid create body for the fixtures; override any field. */
export const orderBody = (fixtures: Fixtures, overrides: Record<string, unknown> = {}) => ({
  customer_id: fixtures.customers.customer.id,
  sales_order_date: ORDER_DATE,
  location_id: fixtures.locations.dhaka.id,
  remarks: 'Deliver before Friday',
  details: [
    {
      product_id: fixtures.products.product.id,
      packsize_id: fixtures.packsizes.packsize.id,
      quantity: 10,
      rate: 455.5,
      amount: 4555,
      remarks: 'Cold chain',
    },
    { product_id: fixtures.products.otherProduct.id, quantity: 2.5, rate: 1200 },
  ],
  other_charges: [{ description: 'Carriage', amount: 350 }],
  ...overrides,
});

/**
 * A line of a JSON Lines import: a one-line order at Chattogram, its `order_ref` also its customer
 * reference (to find the orders it made).
 */
export const importLine = (fixtures: Fixtures, ref: string) =>
  JSON.stringify({
    order_ref: ref,
    customer_id: fixtures.customers.customer.id,
    location_id: fixtures.locations.chattogram.id,
    sales_order_date: ORDER_DATE,
    customer_reference: ref,
    details: [{ product_id: fixtures.products.otherProduct.id, quantity: 1, rate: 5 }],
  });
