import { describe, expect, it } from 'vitest';

import { orderNumberKey } from '../src/orders/numbering.js';
import { loadConfig } from '../src/startup/config.js';
import { ORDER_DATE, orderBody, PREVIOUS_YEAR_DATE } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';

/**
 * Order numbers: supplied numbers of the order's own series, of another series, and free-form
 * ones; the counter and its bound; uniqueness across every order, enforced by the database.
 * Fixture years: FY2026-27 (ORDER_DATE) and FY2025-26 (PREVIOUS_YEAR_DATE).
 */
describe('order numbers', () => {
  const suite = useServerWithFixtures();
  const http = () => suite.server.http;
  const prisma = () => suite.server.database.prisma;

  /** A location of its own per test, so each test starts with empty series. */
  const newLocation = async (code: string) =>
    (await prisma().location.create({ data: { code, name: `${code} depot` } })).id;

  const create = (locationId: number, salesOrderNo?: string, date = ORDER_DATE) =>
    http()
      .post('/sales-orders')
      .send(
        orderBody(suite.fixtures, { location_id: locationId, sales_order_date: date, sales_order_no: salesOrderNo }),
      );

  const counterOf = async (locationId: number, yearId = suite.fixtures.years.currentYear.id) =>
    (
      await prisma().salesOrderCounter.findUnique({
        where: { locationId_financialYearId: { locationId, financialYearId: yearId } },
      })
    )?.lastSequence ?? 0n;

  const maxNumber = async (locationId: number, yearId = suite.fixtures.years.currentYear.id) =>
    (await http().get(`/sales-orders/max-number?year_id=${yearId}&location_id=${locationId}`).expect(200)).body.data;

  const refusal = (response: { status: number; body: { error: { details: { path: string; code: string }[] } } }) => ({
    status: response.status,
    details: response.body.error.details.map(({ path, code }) => ({ path, code })),
  });

  it('refuses a series-shaped number of another series, and that series later issues it itself', async () => {
    const khulna = await newLocation('KHL');
    const sylhet = await newLocation('SYL');
    for (const number of ['SYL-2026-00002', 'syl-2026-2', 'KHL-2025-00002', 'KHL-2027-00001', 'khl-1999-7']) {
      expect(refusal(await create(khulna, number)), number).toEqual({
        status: 422,
        details: [{ path: 'sales_order_no', code: 'order_number_out_of_series' }],
      });
    }
    expect(await prisma().salesOrder.count({ where: { locationId: khulna } })).toBe(0);
    expect(await counterOf(khulna)).toBe(0n);

    const numbers = [
      (await create(sylhet).expect(201)).body.data.order_number,
      (await create(sylhet).expect(201)).body.data.order_number,
    ];
    expect(numbers).toEqual(['SYL-2026-00001', 'SYL-2026-00002']);
  });

  it('stores a number of its own series in canonical form; case and padding variants are duplicates', async () => {
    const dinajpur = await newLocation('DNJ');
    const created = await create(dinajpur, 'dnj-2026-0007').expect(201);
    expect(created.body.data.order_number).toBe('DNJ-2026-00007');

    // Sending the number back in any spelling is no attempt to renumber the order.
    const id = created.body.data.sales_order_id;
    await http().put(`/sales-orders/${id}`).send({ sales_order_no: 'dnj-2026-7', remarks: 'same number' }).expect(200);
    expect(refusal(await http().put(`/sales-orders/${id}`).send({ sales_order_no: 'DNJ-2026-00070' }))).toEqual({
      status: 422,
      details: [{ path: 'sales_order_no', code: 'order_number_change' }],
    });
    expect((await http().get(`/sales-orders/${id}`).expect(200)).body.data.sales_order_no).toBe('DNJ-2026-00007');

    for (const variant of ['DNJ-2026-00007', 'dnj-2026-7', 'Dnj-2026-000000007', 'DNJ-2026-0007']) {
      expect(refusal(await create(dinajpur, variant)), variant).toEqual({
        status: 422,
        details: [{ path: 'sales_order_no', code: 'duplicate_order_number' }],
      });
    }
    // The server's own numbers take the same form, and a gap below the counter can be supplied once.
    expect((await create(dinajpur).expect(201)).body.data.order_number).toBe('DNJ-2026-00008');
    expect(refusal(await create(dinajpur, 'dnj-2026-0008')).details[0]?.code).toBe('duplicate_order_number');
    expect((await create(dinajpur, 'DNJ-2026-00001').expect(201)).body.data.order_number).toBe('DNJ-2026-00001');
    expect(refusal(await create(dinajpur, 'dnj-2026-0001')).details[0]?.code).toBe('duplicate_order_number');
  });

  it('keeps six-digit and longer sequences as they are, without leading zeros', async () => {
    const narayanganj = await newLocation('NRJ');
    await create(narayanganj, 'NRJ-2026-9999').expect(201);
    expect((await create(narayanganj, 'nrj-2026-0000123456')).status).toBe(422); // too far ahead of 9999
    expect((await create(narayanganj, 'nrj-2026-0000012345').expect(201)).body.data.order_number).toBe(
      'NRJ-2026-12345',
    );
    expect((await create(narayanganj).expect(201)).body.data.order_number).toBe('NRJ-2026-12346');
  });

  it('accepts free-form numbers when unique, case ignored, in any series; they move no counter', async () => {
    const bogura = await newLocation('BOG');
    for (const number of ['X-999999999999999999', 'PO-20261115', 'CTG-MANUAL-7', 'INV/2026/7']) {
      expect((await create(bogura, number).expect(201)).body.data.order_number).toBe(number);
    }
    expect(await counterOf(bogura)).toBe(0n);
    expect((await create(bogura).expect(201)).body.data.order_number).toBe('BOG-2026-00001');
    expect(await maxNumber(bogura)).toMatchObject({
      max_sales_order_number: 'BOG-2026-00001',
      next_sales_order_number: 'BOG-2026-00002',
    });

    // Unique across every order: another case, another location, another year.
    const chattogram = suite.fixtures.locations.chattogram.id;
    for (const [locationId, number, date] of [
      [bogura, 'po-20261115', ORDER_DATE],
      [chattogram, 'PO-20261115', ORDER_DATE],
      [chattogram, 'ctg-manual-7', PREVIOUS_YEAR_DATE],
    ] as const) {
      expect(refusal(await create(locationId, number, date)), number).toEqual({
        status: 422,
        details: [{ path: 'sales_order_no', code: 'duplicate_order_number' }],
      });
    }
  });

  it('moves its own series counter only up to ORDER_NUMBER_MAX_AHEAD (default 10,000) past it', async () => {
    const rajshahi = await newLocation('RAJ');
    expect(refusal(await create(rajshahi, 'RAJ-2026-10001'))).toEqual({
      status: 422,
      details: [{ path: 'sales_order_no', code: 'order_number_too_far_ahead' }],
    });
    expect(await counterOf(rajshahi)).toBe(0n);

    await create(rajshahi, 'RAJ-2026-10000').expect(201);
    expect(await counterOf(rajshahi)).toBe(10_000n);
    expect((await create(rajshahi, 'RAJ-2026-20001')).body.error.details[0].code).toBe('order_number_too_far_ahead');
    await create(rajshahi, 'raj-2026-20000').expect(201);
    // A number below the counter (a gap) is taken as it is and never moves the counter back.
    expect((await create(rajshahi, 'RAJ-2026-42').expect(201)).body.data.order_number).toBe('RAJ-2026-00042');
    expect((await create(rajshahi).expect(201)).body.data.order_number).toBe('RAJ-2026-20001');
  });

  it('answers max-number numerically, deleted orders included, with canonical numbers; free-form numbers are in no series', async () => {
    const comilla = await newLocation('CML');
    const year = suite.fixtures.years.previousYear.id;
    await create(comilla, 'cml-2025-9', PREVIOUS_YEAR_DATE).expect(201);
    const ten = await create(comilla, 'CML-2025-010', PREVIOUS_YEAR_DATE).expect(201);
    await create(comilla, 'Z-99999', PREVIOUS_YEAR_DATE).expect(201);
    await http().delete(`/sales-orders/${ten.body.data.sales_order_id}`).expect(200);

    expect(await maxNumber(comilla, year)).toMatchObject({
      max_sales_order_number: 'CML-2025-00010',
      next_sales_order_number: 'CML-2025-00011',
    });
    expect((await create(comilla, 'cml-2025-10', PREVIOUS_YEAR_DATE)).body.error.details[0].code).toBe(
      'duplicate_order_number',
    );
  });

  it('gives concurrent creates of one number, in any spelling, exactly one success', async () => {
    const mymensingh = await newLocation('MYM');
    const spellings = ['MYM-2026-00005', 'mym-2026-5', 'Mym-2026-0005', 'MYM-2026-000005'];
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, index) => create(mymensingh, spellings[index % spellings.length])),
    );
    expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
    expect(
      responses.filter((response) => response.status === 422).map((response) => response.body.error.details[0].code),
    ).toEqual(Array(11).fill('duplicate_order_number'));
    expect(await counterOf(mymensingh)).toBe(5n);
  });

  it('gives concurrent server-numbered and supplied creates in one series unique numbers', async () => {
    const barishal = await newLocation('BSL');
    const supplied = [100, 200, 300, 400, 500];
    const responses = await Promise.all([
      ...Array.from({ length: 20 }, () => create(barishal)),
      ...supplied.map((sequence) => create(barishal, `bsl-2026-${sequence}`)),
    ]);
    expect(responses.map((response) => response.status)).toEqual(Array(25).fill(201));
    const sequences = responses.map((response) => Number((response.body.data.order_number as string).split('-')[2]));
    expect(new Set(sequences).size).toBe(25);
    expect(sequences.slice(20)).toEqual(supplied);
    // Server-numbered orders continue from wherever the supplied ones left the counter.
    const stored = await prisma().salesOrder.findMany({
      where: { locationId: barishal },
      select: { sequence: true },
      orderBy: { id: 'asc' },
    });
    expect(stored.map((row) => Number(row.sequence)).sort((a, b) => a - b)).toEqual(
      [...sequences].sort((a, b) => a - b),
    );
    expect(await counterOf(barishal)).toBe(BigInt(Math.max(...sequences)));
  });

  describe('the database enforces uniqueness, whoever writes', () => {
    const insertOrder = (locationId: number, salesOrderNo: string) =>
      prisma().$executeRaw`
        INSERT INTO sales_orders (sales_order_no, location_id, financial_year_id, customer_id, sales_order_date, subtotal, other_charges_total, grand_total)
        VALUES (${salesOrderNo}, ${locationId}, ${suite.fixtures.years.previousYear.id}, ${suite.fixtures.customers.customer.id}, DATE '2026-03-10', 0, 0, 0)`;

    it('refuses a direct SQL insert of a case or padding variant, in any series, deleted orders included', async () => {
      const tangail = await newLocation('TNG');
      const created = await create(tangail, 'TNG-2026-00003').expect(201);
      await http().delete(`/sales-orders/${created.body.data.sales_order_id}`).expect(200);
      await create(tangail, 'Host-Ref-1').expect(201);

      for (const variant of ['tng-2026-3', 'TNG-2026-0003', 'tng-2026-000000003', 'HOST-REF-1', 'host-ref-1']) {
        await expect(insertOrder(suite.fixtures.locations.chattogram.id, variant), variant).rejects.toThrow(/unique/i);
      }
      await insertOrder(suite.fixtures.locations.chattogram.id, 'TNG-2026-00004');
    });

    it('computes the same key in SQL as in numbering.ts', async () => {
      const samples = [
        'DHK-2026-00042',
        'dhk-2026-42',
        'Dhk-2026-0000000042',
        'DHK-2026-123456',
        'DHK-2026-0',
        'DHK-2026-00000',
        'A-B-2026-7',
        'A-12345-6',
        'X-10',
        'po-20261115',
        'ctg-manual-7',
        'INV/2026/7',
        'x.y_z-2026-99999',
      ];
      const rows = await prisma().$queryRaw<{ number: string; key: string }[]>`
        SELECT number, sales_order_number_key(number) AS key FROM unnest(${samples}::text[]) AS number`;
      expect(Object.fromEntries(rows.map((row) => [row.number, row.key]))).toEqual(
        Object.fromEntries(samples.map((sample) => [sample, orderNumberKey(sample)])),
      );
      expect(orderNumberKey('dhk-2026-42')).toBe('DHK-2026-00042');
      expect(orderNumberKey('DHK-2026-0')).toBe('DHK-2026-00000');
      expect(orderNumberKey('A-12345-6')).toBe('A-12345-6');
    });
  });
});

describe('ORDER_NUMBER_MAX_AHEAD', () => {
  it('defaults to 10000 and refuses what is not a whole number from 0 to 1000000000', () => {
    expect(loadConfig({}).orderNumberMaxAhead).toBe(10_000);
    expect(loadConfig({ ORDER_NUMBER_MAX_AHEAD: '0' }).orderNumberMaxAhead).toBe(0);
    for (const bad of ['-1', '1.5', 'ten', '1000000001']) {
      expect(() => loadConfig({ ORDER_NUMBER_MAX_AHEAD: bad }), bad).toThrow(/ORDER_NUMBER_MAX_AHEAD/);
    }
  });

  describe('set to 3', () => {
    const suite = useServerWithFixtures({ ORDER_NUMBER_MAX_AHEAD: '3' });

    it('lets a supplied number move the counter at most 3', async () => {
      const send = (salesOrderNo: string) =>
        suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures, { sales_order_no: salesOrderNo }));
      expect((await send('DHK-2026-00004')).body.error.details[0].code).toBe('order_number_too_far_ahead');
      await send('DHK-2026-00003').expect(201);
      await send('DHK-2026-00006').expect(201);
      expect(
        (await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data
          .order_number,
      ).toBe('DHK-2026-00007');
    });
  });
});
