import {
  COUNT_METRICS,
  GROUP_KEY_FIELDS,
  GROUP_KEY_ORDER,
  type KeysetPart,
  type ReportDateBasis,
  type ReportGroupKey,
  reportKeyset,
  type ReportMetric,
} from '@sales-order/contract';

import { StatementReader } from '../../db/statement-reader.js';
import { type Reader, readRows } from '../../db/transactions.js';
import { withinLocations } from '../../db/within-locations.js';
import { Prisma } from '../../generated/prisma/client.js';
import { conditionsOf, type OrderListFilter, scopedWhere } from '../../orders/store/order-filters.js';

/**
 * A sales report in SQL: one statement groups the caller's matching orders (or their lines, or
 * their deliveries and returns) and sums them exactly in PostgreSQL's numeric, adds the groups up
 * into the totals over every row, then names the groups and cuts the page. A plain GROUP BY, so
 * PostgreSQL may aggregate in parallel workers (GROUPING SETS, which would give the totals in the
 * same pass, never runs in parallel: 2.2-2.8 x the aggregate's own time on 200,000 orders); the
 * few totals that do not add up over groups (orders counted once across products, lines across
 * days) are counted again over the same rows. Which orders count is the order list's own filter in the caller's scope
 * (orders/store/order-filters.ts), applied in the WHERE, before any grouping.
 *
 * Three grains, by what the request asks for:
 * - orders (no `product` key, dated by order): one row per order, its own totals and line count;
 * - lines (`product` among the keys): one row per order line, its quantities from the line's
 *   running totals (delivered, returned, short-closed: each line's own sums, kept by every
 *   delivery, cancellation and return), so a line with many deliveries is counted once;
 * - movements (`date_basis=delivery_date`): per line and day, what its recorded deliveries and
 *   its returns moved, summed per line and day before anything is joined.
 */

export interface SalesReportSpec {
  /** The caller's scope and the list's filters (with `date_basis=delivery_date` its dates are the movements'). */
  filter: OrderListFilter;
  groupBy: readonly ReportGroupKey[];
  metrics: readonly ReportMetric[];
  dateBasis: ReportDateBasis;
  /** A group key or metric of the request, `-` before it for descending. */
  sort: string;
}

/** What a page statement answers: the rows and totals rendered as JSON, and the last row's ordering values. */
export interface SalesReportPage {
  rows: string;
  totals: string;
  more: boolean;
  last: (string | number)[] | null;
}

type Grain = 'orders' | 'lines' | 'movements';
const grainOf = ({ groupBy, dateBasis }: Pick<SalesReportSpec, 'groupBy' | 'dateBasis'>): Grain =>
  dateBasis === 'delivery_date' ? 'movements' : groupBy.includes('product') ? 'lines' : 'orders';

const raw = Prisma.raw;

/** Each group key as grouped (ids and values; names are joined after grouping). */
const KEY_COLUMNS: Record<ReportGroupKey, (grain: Grain) => string> = {
  location: () => 'so.location_id',
  customer: () => 'so.customer_id',
  product: () => 'd.product_id',
  field_officer: () => 'so.field_officer_id',
  port: () => 'so.port_id',
  status: () => 'so.status',
  delivery_status: () => 'so.delivery_status',
  financial_year: () => 'so.financial_year_id',
  // A date is cast to timestamp (not timestamptz) so that the month never depends on a time zone.
  month: (grain) => `date_trunc('month', ${grain === 'movements' ? 'm.day' : 'so.sales_order_date'}::timestamp)::date`,
  day: (grain) => (grain === 'movements' ? 'm.day' : 'so.sales_order_date'),
};

/** The grouped column each key is called by after grouping (`g.<name>`). */
const keyName = (key: ReportGroupKey) => (key === 'month' || key === 'day' ? key : `${key}_key`);

/** Each metric's aggregate at each grain; null: the contract refuses it there. */
const PENDING = 'greatest(d.quantity - (d.delivered_quantity - d.returned_quantity) - d.short_closed_quantity, 0)';
const METRIC_AGGREGATES: Record<ReportMetric, Record<Grain, string | null>> = {
  order_count: { orders: 'count(*)', lines: 'count(DISTINCT so.id)', movements: 'count(DISTINCT so.id)' },
  line_count: { orders: 'sum(so.line_count)', lines: 'count(*)', movements: 'count(DISTINCT d.id)' },
  ordered_quantity: { orders: null, lines: 'sum(d.quantity)', movements: null },
  delivered_quantity: { orders: null, lines: 'sum(d.delivered_quantity)', movements: 'sum(m.delivered)' },
  returned_quantity: { orders: null, lines: 'sum(d.returned_quantity)', movements: 'sum(m.returned)' },
  pending_quantity: { orders: null, lines: `sum(${PENDING})`, movements: null },
  subtotal: { orders: 'sum(so.subtotal)', lines: 'sum(d.amount)', movements: null },
  other_charges_total: { orders: 'sum(so.other_charges_total)', lines: null, movements: null },
  grand_total: { orders: 'sum(so.grand_total)', lines: null, movements: null },
};

/** A metric of the grouped row `g` as its answer writes it: a count, or the exact sum (0 over nothing). */
const metricValue = (metric: ReportMetric, table: string) =>
  COUNT_METRICS.includes(metric)
    ? `coalesce(${table}.${metric}, 0)::bigint`
    : `trim_scale(coalesce(${table}.${metric}, 0))`;

/** Names of the keys that have them, joined to the grouped rows. */
const NAME_JOINS: Partial<Record<ReportGroupKey, { table: string; alias: string; label: string }>> = {
  location: { table: 'locations', alias: 'l', label: 'name' },
  customer: { table: 'customers', alias: 'c', label: 'name' },
  product: { table: 'products', alias: 'p', label: 'name' },
  field_officer: { table: 'field_officers', alias: 'fo', label: 'name' },
  port: { table: 'ports', alias: 'pt', label: 'name' },
  financial_year: { table: 'financial_years', alias: 'fy', label: 'code' },
};

/** The answer's fields of a key (GROUP_KEY_FIELDS) as SQL over the named row `n`. */
const fieldValues = (key: ReportGroupKey): string[] => {
  const join = NAME_JOINS[key];
  if (join) return [`n.${keyName(key)}`, `n.${key}_label`];
  if (key === 'month') return [`to_char(n.month, 'YYYY-MM')`];
  if (key === 'day') return [`to_char(n.day, 'YYYY-MM-DD')`];
  return [`n.${keyName(key)}`];
};

/** The values a key orders by (GROUP_KEY_ORDER), never null: '' and 0 stand for none. */
const orderValues = (key: ReportGroupKey): string[] => {
  if (NAME_JOINS[key]) return [`coalesce(n.${key}_label, '')`, `coalesce(n.${keyName(key)}, 0)`];
  return fieldValues(key);
};

const CASTS: Record<KeysetPart | 'metric', string> = { text: 'text', integer: 'int', metric: 'numeric' };

/** The ordering of the named rows: the sorted metric (as exact text in the cursor), then the keys. */
const orderingOf = ({ groupBy, sort }: SalesReportSpec) => {
  const { metric, keys } = reportKeyset(groupBy, sort);
  const values = [
    ...(metric ? [{ sql: `n.${metric}`, cast: CASTS.metric, cursor: `n.${metric}::text` }] : []),
    ...keys.flatMap((key) =>
      orderValues(key).map((sql, index) => {
        const cast = CASTS[GROUP_KEY_ORDER[key][index]!];
        return { sql, cast, cursor: sql };
      }),
    ),
  ];
  return { values, descending: sort.startsWith('-') };
};

/**
 * Whether a metric's total is the sum of its groups': every sum, and a count of rows. Not a count
 * of distinct orders over lines (an order of two products is in two groups), nor of distinct
 * lines over movements (a line delivered on two days).
 */
const ADDS_UP: Record<Grain, (metric: ReportMetric) => boolean> = {
  orders: () => true,
  lines: (metric) => metric !== 'order_count',
  movements: (metric) => metric !== 'order_count' && metric !== 'line_count',
};

/** A total as its answer writes it: a count, or the exact sum (0 over nothing). */
const totalValue = (metric: ReportMetric, sql: string) =>
  COUNT_METRICS.includes(metric) ? `coalesce(${sql}, 0)::bigint` : `trim_scale(coalesce(${sql}, 0))`;

/**
 * The statement's grouped rows `g`, the named rows `n`, and `totals`: the sums of the groups, or
 * for a metric that does not add up over them, its aggregate over the same rows again.
 */
const groupedRows = (spec: SalesReportSpec): Prisma.Sql => {
  const grain = grainOf(spec);
  const { filter, groupBy, metrics } = spec;
  const keyColumns = groupBy.map((key) => KEY_COLUMNS[key](grain));
  const keys = groupBy.map((key, index) => `${keyColumns[index]} AS ${keyName(key)}`);
  const aggregateOf = (metric: ReportMetric) => {
    const aggregate = METRIC_AGGREGATES[metric][grain];
    // The contract refuses such a request; a caller that did not check it gets no wrong sum.
    if (aggregate === null) throw new Error(`${metric} is not reported at the ${grain} grain`);
    return aggregate;
  };
  const aggregates = metrics.map((metric) => `${aggregateOf(metric)} AS ${metric}`);
  // With deliveries as the dates, the filter's dates are the movements': the order date is left free.
  const orderFilter: OrderListFilter =
    grain === 'movements' ? { ...filter, dateFrom: undefined, dateTo: undefined } : filter;
  const conditions = conditionsOf(orderFilter);
  // Lines of one product, by product: the filter's product narrows the lines, not only the orders.
  if (grain !== 'orders' && filter.productId !== undefined)
    conditions.push(Prisma.sql`d.product_id = ${filter.productId}`);
  const lines = grain === 'orders' ? Prisma.empty : Prisma.sql`JOIN sales_order_details d ON d.sales_order_id = so.id`;
  const moved = grain === 'movements' ? Prisma.sql`JOIN ${movements(filter)} ON m.detail_id = d.id` : Prisma.empty;
  const rows = Prisma.sql`FROM sales_orders so ${lines} ${moved} ${scopedWhere(filter.scope, conditions)}`;
  const joins = groupBy.flatMap((key) => {
    const join = NAME_JOINS[key];
    return join ? [`LEFT JOIN ${join.table} ${join.alias} ON ${join.alias}.id = g.${keyName(key)}`] : [];
  });
  const labels = groupBy.flatMap((key) => {
    const join = NAME_JOINS[key];
    return join ? [`${join.alias}.${join.label} AS ${key}_label`] : [];
  });
  const recounted = metrics.filter((metric) => !ADDS_UP[grain](metric));
  const totals = metrics.map((metric) =>
    ADDS_UP[grain](metric)
      ? `(SELECT ${totalValue(metric, `sum(g.${metric})`)} FROM g) AS ${metric}`
      : `(SELECT ${totalValue(metric, `r.${metric}`)} FROM recounted r) AS ${metric}`,
  );
  const recount =
    recounted.length === 0
      ? Prisma.empty
      : Prisma.sql`, recounted AS (SELECT ${raw(recounted.map((metric) => `${aggregateOf(metric)} AS ${metric}`).join(', '))} ${rows})`;
  return Prisma.sql`
    g AS (
      SELECT ${raw([...keys, ...aggregates].join(', '))}
      ${rows}
      GROUP BY ${raw(keyColumns.join(', '))}),
    n AS (
      SELECT ${raw(['g.*', ...labels].join(', '))} FROM g ${raw(joins.join(' '))})${recount},
    totals AS (SELECT ${raw(totals.join(', '))})`;
};

/**
 * Per order line and day: what its recorded deliveries delivered and what came back on its
 * returns, within the filter's dates; each line's sums are made here, before any join, so that a
 * line with several deliveries and returns counts each of them once. A delivery is located at its
 * order's location: the caller's scope bounds it here too, as it bounds the orders they join.
 */
const movements = ({ scope, dateFrom, dateTo }: Pick<OrderListFilter, 'scope' | 'dateFrom' | 'dateTo'>): Prisma.Sql => {
  const within = (column: string) =>
    Prisma.join(
      [
        Prisma.sql`TRUE`,
        ...(dateFrom === undefined ? [] : [Prisma.sql`${raw(column)} >= ${dateFrom}::date`]),
        ...(dateTo === undefined ? [] : [Prisma.sql`${raw(column)} <= ${dateTo}::date`]),
      ],
      ' AND ',
    );
  return Prisma.sql`(
    SELECT detail_id, day, sum(delivered) AS delivered, sum(returned) AS returned FROM (
      SELECT dl.sales_order_detail_id AS detail_id, dv.delivery_date AS day, dl.quantity AS delivered, 0 AS returned
      FROM deliveries dv JOIN delivery_lines dl ON dl.delivery_id = dv.id
      WHERE ${withinLocations(scope, 'dv.location_id')} AND dv.status = 'recorded' AND ${within('dv.delivery_date')}
      UNION ALL
      SELECT dl.sales_order_detail_id, r.return_date, 0, rl.quantity
      FROM delivery_returns r JOIN delivery_return_lines rl ON rl.return_id = r.id
        JOIN delivery_lines dl ON dl.id = rl.delivery_line_id JOIN deliveries dv ON dv.id = r.delivery_id
      WHERE ${withinLocations(scope, 'dv.location_id')} AND ${within('r.return_date')}) moved
    GROUP BY detail_id, day) m`;
};

/** A row of the answer: the keys' fields, then the metrics, in the request's order, named as the answer names them. */
const rowColumns = ({ groupBy, metrics }: SalesReportSpec): string =>
  [
    ...groupBy.flatMap((key) => GROUP_KEY_FIELDS[key].map((field, index) => `${fieldValues(key)[index]} AS ${field}`)),
    ...metrics.map((metric) => `${metricValue(metric, 'n')} AS ${metric}`),
  ].join(', ');

/**
 * The page statement: the grouped and named rows after `after` in the request's order, `limit`
 * of them and one more (whether another page follows), the page's rows as JSON, the last one's
 * ordering values, and the totals over every row.
 */
export const pageQuery = (spec: SalesReportSpec, after: readonly (string | number)[] | undefined, limit: number) => {
  const { values, descending } = orderingOf(spec);
  const orderBy = raw(values.map(({ sql }) => `${sql} ${descending ? 'DESC' : 'ASC'}`).join(', '));
  const keyset =
    after === undefined
      ? Prisma.sql`TRUE`
      : Prisma.sql`(${raw(values.map(({ sql }) => sql).join(', '))}) ${raw(descending ? '<' : '>')} (${Prisma.join(
          values.map(({ cast }, index) => Prisma.sql`${after[index]}::${raw(cast)}`),
        )})`;
  // row_to_json and array_to_json write JSON without spaces, in the columns' order, as the list does.
  return Prisma.sql`
    WITH ${groupedRows(spec)},
    page AS (
      SELECT row_to_json(item) AS item,
        json_build_array(${raw(values.map(({ cursor }) => cursor).join(', '))}) AS ordering,
        row_number() OVER (ORDER BY ${orderBy}) AS at
      FROM n CROSS JOIN LATERAL (SELECT ${raw(rowColumns(spec))}) item
      WHERE ${keyset}
      ORDER BY ${orderBy} LIMIT ${limit + 1}::int)
    SELECT
      (SELECT coalesce(array_to_json(array_agg(item ORDER BY at) FILTER (WHERE at <= ${limit}::int)), '[]')::text
       FROM page) AS rows,
      (SELECT count(*) > ${limit}::int FROM page) AS more,
      (SELECT ordering::text FROM page WHERE at = ${limit}::int) AS last,
      (SELECT row_to_json(totals)::text FROM totals) AS totals`;
};

/** Every row, in order, as text cells (the CSV's), each with the number of rows in all. */
export const allRowsQuery = (spec: SalesReportSpec, max: number) => {
  const { values, descending } = orderingOf(spec);
  const orderBy = raw(values.map(({ sql }) => `${sql} ${descending ? 'DESC' : 'ASC'}`).join(', '));
  const cells = [
    ...spec.groupBy.flatMap((key) =>
      fieldValues(key).map((sql, index) => `(${sql})::text AS "${GROUP_KEY_FIELDS[key][index]}"`),
    ),
    ...spec.metrics.map((metric) => `(${metricValue(metric, 'n')})::text AS "${metric}"`),
  ];
  return Prisma.sql`
    WITH ${groupedRows(spec)}
    SELECT ${raw(cells.join(', '))}, count(*) OVER () AS row_count
    FROM n ORDER BY ${orderBy} LIMIT ${max + 1}::int`;
};

export type CsvRow = Record<string, string | null> & { row_count: string };

export const salesReportStore = {
  page: async (
    reader: Reader,
    spec: SalesReportSpec,
    after: readonly (string | number)[] | undefined,
    limit: number,
    timeoutMs: number,
  ): Promise<SalesReportPage> => {
    const query = pageQuery(spec, after, limit);
    const [row] = await (reader instanceof StatementReader
      ? reader.longRows<{ rows: string; more: boolean; last: string | null; totals: string }>(query, timeoutMs)
      : readRows<{ rows: string; more: boolean; last: string | null; totals: string }>(reader, query));
    const { rows, more, last, totals } = row!;
    return { rows, more, totals, last: last === null ? null : (JSON.parse(last) as (string | number)[]) };
  },

  /**
   * Every row, a batch at a time, each with the count of rows in all (the first batch tells
   * whether the report is within `max`); the statement reads at most `max + 1` rows.
   */
  rows: async function* (
    reader: Reader,
    spec: SalesReportSpec,
    max: number,
    timeoutMs: number,
  ): AsyncGenerator<CsvRow[], void, undefined> {
    const query = allRowsQuery(spec, max);
    if (reader instanceof StatementReader) yield* reader.longBatches<CsvRow>(query, timeoutMs, 1_000);
    else yield await readRows<CsvRow>(reader, query);
  },
};
