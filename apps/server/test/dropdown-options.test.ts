import { DROPDOWN_TYPES, type DropdownType } from '@sales-order/contract';
import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { PrismaClient } from '../src/generated/prisma/client.js';
import { eventually } from './support/eventually.js';
import { type ParsedOption, parseOptions } from './support/option-html.js';
import { type QueryCountingServer, startQueryCountingServer } from './support/query-counting-server.js';
import { startTestServer, type TestServer } from './support/test-server.js';

interface MasterRow {
  code: string;
  name: string;
  active?: boolean;
}

/** Writes rows into the master table behind a dropdown type, as the host ERP would. */
const insertRows = async (
  prisma: PrismaClient,
  type: DropdownType,
  rows: MasterRow[],
): Promise<{ id: number; name: string }[]> => {
  const select = { id: true, name: true } as const;
  switch (type) {
    case 'field-officers':
      return prisma.fieldOfficer.createManyAndReturn({ data: rows, select });
    case 'products':
      return prisma.product.createManyAndReturn({ data: rows, select });
    case 'locations':
      return prisma.location.createManyAndReturn({ data: rows, select });
    case 'customers':
      return prisma.customer.createManyAndReturn({ data: rows, select });
    case 'ports':
      return prisma.port.createManyAndReturn({ data: rows, select });
  }
};

const HOSTILE_NAME = `<script>alert(1)</script> & "Co" 'x'`;

// Names in an order that differs from the sorted one, so insertion order cannot pass for
// sorting; they sort the same under the C and the common language collations.
const rowsFor = (type: DropdownType): MasterRow[] => [
  { code: `${type}-3`, name: `Tango ${type}` },
  { code: `${type}-1`, name: `Alpha ${type}` },
  { code: `${type}-4`, name: `Bravo ${type} (retired)`, active: false },
  { code: `${type}-2`, name: `Mike ${type}` },
];

describe('GET /sales-orders/dropdown-options/{type}', () => {
  let server: TestServer;
  const rows = new Map<DropdownType, { id: number; name: string }[]>();
  const idOf = (type: DropdownType, name: string) => rows.get(type)!.find((row) => row.name === name)!.id;

  beforeAll(async () => {
    server = await startTestServer();
    for (const type of DROPDOWN_TYPES) rows.set(type, await insertRows(server.database.prisma, type, rowsFor(type)));
  });
  afterAll(() => server?.close());

  it.each(DROPDOWN_TYPES)('%s: active records by name, one option each, nothing selected', async (type) => {
    const response = await server.http.get(`/sales-orders/dropdown-options/${type}`);

    expect(response.status).toBe(200);
    const sorted = ['Alpha', 'Mike', 'Tango'].map((word) => ({
      id: idOf(type, `${word} ${type}`),
      name: `${word} ${type}`,
    }));
    expect(response.body).toEqual({
      success: true,
      data: {
        type,
        html: sorted.map(({ id, name }) => `<option value="${id}">${name}</option>`).join('\n'),
        selected_id: null,
        truncated: false,
      },
    });
    expect(parseOptions(response.body.data.html)).toEqual(
      sorted.map(({ id, name }) => ({ value: String(id), text: name, selected: false })),
    );
  });

  it.each(DROPDOWN_TYPES)('%s: selected_id marks exactly that option and is echoed', async (type) => {
    const mike = idOf(type, `Mike ${type}`);

    const response = await server.http.get(`/sales-orders/dropdown-options/${type}`).query({ selected_id: mike });

    expect(response.status).toBe(200);
    expect(response.body.data.selected_id).toBe(mike);
    expect(response.body.data.html.split('\n')[1]).toBe(`<option value="${mike}" selected>Mike ${type}</option>`);
    expect(parseOptions(response.body.data.html).map((option) => [option.value, option.selected])).toEqual([
      [String(idOf(type, `Alpha ${type}`)), false],
      [String(mike), true],
      [String(idOf(type, `Tango ${type}`)), false],
    ]);
  });

  it('an unknown selected_id, or that of an inactive record, selects nothing and is still echoed', async () => {
    const inactive = idOf('ports', 'Bravo ports (retired)');
    for (const selected of [999_999, inactive]) {
      const response = await server.http.get('/sales-orders/dropdown-options/ports').query({ selected_id: selected });

      expect(response.status).toBe(200);
      expect(response.body.data.selected_id).toBe(selected);
      const options = parseOptions(response.body.data.html);
      expect(options).toHaveLength(3);
      expect(options.some((option) => option.selected)).toBe(false);
      expect(response.body.data.html).not.toContain('selected');
    }
  });

  it('escapes names: a hostile customer name comes back as text, not markup', async () => {
    const [hostile] = await insertRows(server.database.prisma, 'customers', [{ code: 'HOSTILE', name: HOSTILE_NAME }]);

    // The list was read (and kept) by the tests above: the insert's notice reaches the server
    // asynchronously, so wait for it before judging what the new option looks like.
    let response: Response | undefined;
    await eventually(async () => {
      response = await server.http.get('/sales-orders/dropdown-options/customers').query({ selected_id: hostile!.id });
      return response.body.data?.html.includes(`value="${hostile!.id}"`) === true;
    }, 10_000);

    expect(response!.status).toBe(200);
    const html: string = response!.body.data.html;
    expect(html).toContain(
      `<option value="${hostile!.id}" selected>&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Co&quot; &#39;x&#39;</option>`,
    );
    expect(html).not.toContain('<script>');
    // A real HTML parser reads back exactly the stored names, and nothing else.
    expect(parseOptions(html)).toEqual([
      { value: String(hostile!.id), text: HOSTILE_NAME, selected: true },
      { value: String(idOf('customers', 'Alpha customers')), text: 'Alpha customers', selected: false },
      { value: String(idOf('customers', 'Mike customers')), text: 'Mike customers', selected: false },
      { value: String(idOf('customers', 'Tango customers')), text: 'Tango customers', selected: false },
    ]);
  });

  it('sorts equal names by id, whatever order the rows are stored in', async () => {
    const prisma = server.database.prisma;
    const [first, second] = await insertRows(prisma, 'field-officers', [
      { code: 'TWIN-1', name: 'Twin Officer' },
      { code: 'TWIN-2', name: 'Twin Officer' },
    ]);
    // Rewriting the lower id stores its new row version after the other one, so a sort
    // without the id tie-break would return them the other way round.
    await prisma.fieldOfficer.update({ where: { id: first!.id }, data: { code: 'TWIN-1A' } });

    // Both twins are heard of once the notices arrive (the list was kept by the tests above).
    let twins: ParsedOption[] = [];
    await eventually(async () => {
      const response = await server.http.get('/sales-orders/dropdown-options/field-officers');
      twins = parseOptions(response.body.data.html).filter((option) => option.text === 'Twin Officer');
      return twins.length === 2;
    }, 10_000);
    expect(twins.map((option) => option.value)).toEqual([String(first!.id), String(second!.id)]);
  });

  it('an unknown type is a 400 in the error envelope', async () => {
    const response = await server.http.get('/sales-orders/dropdown-options/warehouses');

    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      success: false,
      error: {
        message: 'Invalid input data',
        code: 400,
        details: [
          {
            path: 'type',
            code: 'invalid_enum_value',
            message:
              "Invalid enum value. Expected 'field-officers' | 'products' | 'locations' | 'customers' | 'ports', received 'warehouses'",
          },
        ],
      },
    });
  });

  it.each(['abc', '0', '-3', '1.5', ''])('selected_id=%j is a 400 naming selected_id', async (selected) => {
    const response = await server.http.get(`/sales-orders/dropdown-options/ports?selected_id=${selected}`);

    expect(response.status).toBe(400);
    expect(response.body.success).toBe(false);
    expect(response.body.error.code).toBe(400);
    expect(response.body.error.details).toEqual([expect.objectContaining({ path: 'selected_id' })]);
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'dropdown-options query count (needs TEST_DATABASE_URL: LISTEN)',
  () => {
    let server: QueryCountingServer;

    beforeAll(async () => {
      server = await startQueryCountingServer();
    });
    afterAll(() => server?.close());

    it('reads a type in one query, then not again until its table changes', async () => {
      let response = await server.http.get('/sales-orders/dropdown-options/customers');
      const warmQueries = await server.queriesDuring(async () => {
        response = await server.http.get('/sales-orders/dropdown-options/customers');
      });
      expect(response.body.data.html).toBe('');
      expect(warmQueries).toHaveLength(0);

      const rows = Array.from({ length: 300 }, (_, index) => ({
        code: `BULK${index}`,
        name: `Bulk Customer ${String(index).padStart(3, '0')}`,
        active: index % 10 !== 0,
      }));
      await insertRows(server.database.prisma, 'customers', rows);

      // The insert's notice drops the kept list: the next read is one query over the table.
      let readQueries: string[] = [];
      await eventually(async () => {
        readQueries = await server.queriesDuring(async () => {
          response = await server.http.get('/sales-orders/dropdown-options/customers').query({ selected_id: 2 });
        });
        return parseOptions(response.body.data.html).length === 270;
      }, 2_000);
      expect(readQueries).toHaveLength(1);
      expect(readQueries[0]).toMatch(/FROM "public"\."customers"/);
      expect(readQueries[0]).toMatch(/ORDER BY .*"name" ASC.*"id" ASC/);
      expect(
        await server.queriesDuring(() => server.http.get('/sales-orders/dropdown-options/customers').expect(200)),
      ).toHaveLength(0);
    });
  },
);
