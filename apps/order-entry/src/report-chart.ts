import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';

import { el } from './dom.js';

// Only what a bar chart needs: the rest of Chart.js stays out of the page's bundle.
Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

/** What the chart shows: bars per label, one series per dataset. */
export interface ChartSeries {
  title: string;
  labels: string[];
  datasets: { label: string; data: number[] }[];
  /** How a value is written (money, quantity). */
  format: (value: number) => string;
}

/** Colours that keep 3:1 against white and apart from each other. */
const PALETTE = ['#1f5fa8', '#b3541e', '#2e7d32', '#6a3d9a', '#8c564b', '#c2185b', '#00796b', '#5d4037'];

/**
 * A bar chart drawn by Chart.js on a canvas, with the same numbers as a table for screen
 * readers: the canvas is an image named by the chart's title, and the table under it ("Chart
 * data", folded) is written from the chart's own data once it is drawn, so what a screen reader
 * hears is what the chart shows.
 */
export const createReportChart = (root: HTMLElement) => {
  const canvas = el('canvas', { role: 'img' });
  const caption = el('figcaption', { id: 'report-chart-title' });
  const fallback = el('table', { id: 'report-chart-data' });
  canvas.setAttribute('aria-describedby', fallback.id);
  const figure = el(
    'figure',
    { class: 'report-chart', hidden: true },
    caption,
    el('div', { class: 'chart-box' }, canvas),
    // The chart's numbers for anyone who cannot see the bars: a screen reader opens it like
    // anyone else (a table cannot be hidden visually without sticking out: it is as wide as its content).
    el(
      'details',
      { class: 'chart-data' },
      el('summary', {}, 'Chart data'),
      el('div', { class: 'table-box' }, fallback),
    ),
  );
  root.append(figure);
  let chart: Chart<'bar'> | undefined;

  /** The chart's own data as a table: a row per label, a column per series. */
  const writeFallback = (drawn: Chart<'bar'>, { title, format }: ChartSeries) => {
    const labels = (drawn.data.labels ?? []).map(String);
    const datasets = drawn.data.datasets;
    fallback.replaceChildren(
      el('caption', {}, `${title} (the chart's numbers)`),
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          el('th', { scope: 'col' }, ''),
          ...datasets.map((set) => el('th', { scope: 'col' }, String(set.label))),
        ),
      ),
      el(
        'tbody',
        {},
        ...labels.map((label, index) =>
          el(
            'tr',
            {},
            el('th', { scope: 'row' }, label),
            ...datasets.map((set) => {
              const value = set.data[index] as number | null | undefined;
              return el(
                'td',
                { 'data-value': value === null || value === undefined ? '' : String(value) },
                value === null || value === undefined ? '' : format(value),
              );
            }),
          ),
        ),
      ),
    );
  };

  return {
    show: (series: ChartSeries) => {
      chart?.destroy();
      figure.hidden = series.labels.length === 0;
      if (figure.hidden) return;
      caption.textContent = series.title;
      canvas.setAttribute('aria-label', `${series.title}: a bar chart; its numbers are in Chart data, below`);
      chart = new Chart(canvas, {
        type: 'bar',
        data: {
          labels: series.labels,
          datasets: series.datasets.map((set, index) => ({
            label: set.label,
            data: set.data,
            backgroundColor: PALETTE[index % PALETTE.length],
          })),
        },
        options: {
          responsive: true,
          maintainAspectRatio: false,
          // The table below is what assistive technology reads; no animation delays the numbers.
          animation: false,
          plugins: {
            legend: { display: series.datasets.length > 1 },
            tooltip: {
              callbacks: { label: (item) => `${item.dataset.label ?? ''}: ${series.format(item.parsed.y ?? 0)}` },
            },
          },
          scales: { y: { beginAtZero: true, ticks: { callback: (value) => series.format(Number(value)) } } },
        },
      });
      writeFallback(chart, series);
    },
  };
};
