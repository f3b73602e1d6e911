import type { ReportGroupKey, ReportMetric, SalesOrderClient } from '@sales-order/client';

import { el, labelled } from './dom.js';
import { formatAmount, formatQuantity } from './format.js';
import { reportOn, say, statusLine } from './notice.js';
import type { ChartSeries } from './report-chart.js';

/** Rows a page of the table holds; Load more asks for the next. */
const PAGE_SIZE = 200;
/** Bars of a chart that is not by month: the top rows by the first metric. */
const TOP_BARS = 10;

const KEYS: Record<ReportGroupKey, string> = {
  location: 'Location',
  customer: 'Customer',
  product: 'Product',
  field_officer: 'Field officer',
  port: 'Port',
  status: 'Status',
  delivery_status: 'Delivery status',
  financial_year: 'Financial year',
  month: 'Month',
  day: 'Day',
};

const METRICS: Record<ReportMetric, { label: string; money: boolean }> = {
  order_count: { label: 'Orders', money: false },
  line_count: { label: 'Lines', money: false },
  ordered_quantity: { label: 'Ordered', money: false },
  delivered_quantity: { label: 'Delivered', money: false },
  returned_quantity: { label: 'Returned', money: false },
  pending_quantity: { label: 'Pending', money: false },
  subtotal: { label: 'Subtotal', money: true },
  other_charges_total: { label: 'Other charges', money: true },
  grand_total: { label: 'Grand total', money: true },
};

type Row = Record<string, string | number | null>;

/** A row's words for a group key: its name, or its value. */
const labelOf = (row: Row, key: ReportGroupKey): string => {
  switch (key) {
    case 'location':
    case 'customer':
    case 'product':
      return String(row[`${key}_name`]);
    case 'field_officer':
      return row.field_officer_name === null ? 'No field officer' : String(row.field_officer_name);
    case 'port':
      return row.port_name === null ? 'No port' : String(row.port_name);
    case 'financial_year':
      return String(row.financial_year_code);
    case 'delivery_status':
      return String(row.delivery_status).replace('_', ' ');
    default:
      return String(row[key]);
  }
};

const formatMetric = (metric: ReportMetric, value: number) =>
  METRICS[metric].money ? formatAmount(value) : formatQuantity(value);

/**
 * The chart of a report: bars by the other key per month when it is grouped by month, else the
 * top rows by the first metric (money first, when one is asked for).
 */
export const seriesOf = (rows: Row[], keys: ReportGroupKey[], metrics: ReportMetric[]): ChartSeries => {
  const metric = metrics.find((each) => METRICS[each].money) ?? metrics[0]!;
  const format = (value: number) => formatMetric(metric, value);
  const other = keys.find((key) => key !== 'month');
  if (keys.includes('month') && other) {
    const months = [...new Set(rows.map((row) => String(row.month)))].sort();
    const groups = [...new Set(rows.map((row) => labelOf(row, other)))];
    return {
      title: `${METRICS[metric].label} by ${KEYS[other].toLowerCase()} per month`,
      labels: months,
      datasets: groups.map((group) => ({
        label: group,
        data: months.map((month) =>
          rows
            .filter((row) => String(row.month) === month && labelOf(row, other) === group)
            .reduce((sum, row) => sum + Number(row[metric]), 0),
        ),
      })),
      format,
    };
  }
  const top = [...rows].sort((a, b) => Number(b[metric]) - Number(a[metric])).slice(0, TOP_BARS);
  return {
    title: `Top ${top.length} by ${METRICS[metric].label.toLowerCase()}`,
    labels: top.map((row) => keys.map((key) => labelOf(row, key)).join(', ')),
    datasets: [{ label: METRICS[metric].label, data: top.map((row) => Number(row[metric])) }],
    format,
  };
};

/**
 * The Reports screen: a period, up to two group keys and the metrics; the table (sorted by the
 * service, a click on a column's heading sorts by it), its totals over every row, a chart of it
 * (report-chart.ts) and Download CSV. Shown only to a caller who may read reports: `show()` asks
 * for the first report, and a refusal leaves the screen out.
 */
export const createReportsScreen = (root: HTMLElement, client: SalesOrderClient) => {
  const from = labelled('From', el('input', { type: 'date' }));
  const to = labelled('To', el('input', { type: 'date' }));
  const keyOptions = (none?: string) => [
    ...(none ? [el('option', { value: '' }, none)] : []),
    ...(Object.keys(KEYS) as ReportGroupKey[]).map((key) => el('option', { value: key }, KEYS[key])),
  ];
  const first = labelled('Group by', el('select', {}, ...keyOptions()));
  const second = labelled('Then by', el('select', {}, ...keyOptions('Nothing')));
  first.control.value = 'location';
  second.control.value = 'month';
  const boxes = (Object.keys(METRICS) as ReportMetric[]).map((metric) => {
    const box = el('input', { type: 'checkbox', value: metric, id: `report-metric-${metric}` });
    box.checked = metric === 'order_count' || metric === 'grand_total';
    // Not "Subtotal" or "Grand total": the order form's totals are labelled so already.
    const words =
      metric === 'subtotal' ? 'Line amounts' : metric === 'grand_total' ? 'Order totals' : METRICS[metric].label;
    return { metric, box, label: el('label', { class: 'check' }, box, words) };
  });
  const show = el('button', { type: 'submit', class: 'primary' }, 'Show report');
  const download = el('button', { type: 'button' }, 'Download CSV');
  const status = statusLine('report-status');
  const report = reportOn(status);
  const form = el(
    'form',
    { novalidate: true, 'aria-labelledby': 'reports-heading' },
    el('div', { class: 'report-fields' }, from.wrapper, to.wrapper, first.wrapper, second.wrapper),
    el('fieldset', { class: 'report-metrics' }, el('legend', {}, 'Show'), ...boxes.map(({ label }) => label)),
    el('div', { class: 'actions' }, show, download),
  );
  const head = el('thead');
  const body = el('tbody');
  const foot = el('tfoot');
  const table = el('table', { id: 'report-table', 'aria-labelledby': 'reports-heading' }, head, body, foot);
  const more = el('button', { type: 'button', hidden: true }, 'Load more');
  const chartBox = el('div');
  // Chart.js is most of the page's weight: loaded when the first report is drawn, not with the page.
  let chart: Promise<{ show: (series: ChartSeries) => void }> | undefined;
  const drawChart = async (series: ChartSeries) => {
    chart ??= import('./report-chart.js').then(({ createReportChart }) => createReportChart(chartBox));
    (await chart).show(series);
  };
  root.replaceChildren(
    el('h2', { id: 'reports-heading' }, 'Reports'),
    form,
    status,
    chartBox,
    el('div', { class: 'table-box' }, table),
    el('div', { class: 'actions' }, more),
  );

  /** The request on the screen, its sort and the next page's cursor. */
  let keys: ReportGroupKey[] = [];
  let metrics: ReportMetric[] = [];
  let sort = '';
  let cursor: string | undefined;
  let rows: Row[] = [];

  const query = () => ({
    group_by: keys,
    metrics,
    ...(from.control.value ? { date_from: from.control.value } : {}),
    ...(to.control.value ? { date_to: to.control.value } : {}),
  });

  const heading = (name: string, label: string, numeric: boolean) => {
    const sorted = sort === name ? 'ascending' : sort === `-${name}` ? 'descending' : undefined;
    const button = el('button', { type: 'button', class: 'link' }, label);
    // A first click sorts a number from the largest, a name from A.
    button.addEventListener('click', () => {
      sort = sorted === undefined ? (numeric ? `-${name}` : name) : sorted === 'ascending' ? `-${name}` : name;
      load(false).then(() => say(status, `Sorted by ${label.toLowerCase()}.`), report);
    });
    return el('th', { scope: 'col', class: numeric ? 'number' : undefined, 'aria-sort': sorted }, button);
  };

  const render = async (totals: Row) => {
    head.replaceChildren(
      el(
        'tr',
        {},
        ...keys.map((key) => heading(key, KEYS[key], false)),
        ...metrics.map((metric) => heading(metric, METRICS[metric].label, true)),
      ),
    );
    body.replaceChildren(
      ...rows.map((row) =>
        el(
          'tr',
          {},
          ...keys.map((key) => el('td', {}, labelOf(row, key))),
          ...metrics.map((metric) => el('td', { class: 'number' }, formatMetric(metric, Number(row[metric])))),
        ),
      ),
    );
    foot.replaceChildren(
      el(
        'tr',
        {},
        el('th', { scope: 'row', colspan: String(keys.length) }, 'Total'),
        ...metrics.map((metric) => el('td', { class: 'number' }, formatMetric(metric, Number(totals[metric])))),
      ),
    );
    await drawChart(seriesOf(rows, keys, metrics));
  };

  const load = async (append: boolean) => {
    const page = await client.salesReport({
      ...query(),
      sort,
      limit: PAGE_SIZE,
      ...(append && cursor ? { cursor } : {}),
    });
    rows = append ? [...rows, ...(page.rows as unknown as Row[])] : page.rows;
    cursor = page.next_cursor ?? undefined;
    more.hidden = cursor === undefined;
    await render(page.totals);
    if (rows.length === 0) say(status, 'No orders match.');
  };

  /** The form's choice: the keys (two different ones at most) and the metrics ticked. */
  const choose = () => {
    keys = [first.control.value, second.control.value].filter(
      (key, index, all): key is ReportGroupKey => key !== '' && all.indexOf(key) === index,
    );
    metrics = boxes.filter(({ box }) => box.checked).map(({ metric }) => metric);
    if (metrics.length === 0) metrics = ['order_count'];
    sort = keys[0]!;
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    choose();
    say(status, 'Loading the report…');
    load(false).then(() => {
      if (rows.length > 0) say(status, `${rows.length} rows${cursor ? ' so far' : ''}.`);
    }, report);
  });
  more.addEventListener('click', () => {
    load(true).then(() => say(status, `${rows.length} rows${cursor ? ' so far' : ''}.`), report);
  });
  download.addEventListener('click', () => {
    choose();
    download.disabled = true;
    client
      .salesReportCsv(query())
      .then(async (csv) => {
        const chunks: string[] = [];
        for await (const chunk of csv) chunks.push(chunk);
        return new Blob(chunks, { type: 'text/csv' });
      })
      .then((blob) => {
        const link = el('a', {
          href: URL.createObjectURL(blob),
          download: 'sales-report.csv',
          hidden: true,
        });
        document.body.append(link);
        link.click();
        link.remove();
        setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
        say(status, 'Downloaded sales-report.csv.');
      }, report)
      .finally(() => {
        download.disabled = false;
      });
  });

  return {
    /** Shows the screen with its first report when the caller may read reports; leaves it out otherwise. */
    show: async () => {
      choose();
      try {
        await load(false);
      } catch {
        // 403 missing_permission (or the session gone, which the list says): no Reports screen.
        root.remove();
        return;
      }
      root.hidden = false;
    },
  };
};
