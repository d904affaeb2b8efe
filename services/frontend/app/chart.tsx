// A chart of the pages (ECharts, loaded on demand: echart.tsx) with its numbers also given as a list, so that a
// screen reader and a keyboard reach the values the canvas draws.
import { lazy, Suspense } from "react";

const loadEChart = () => import("./echart.tsx");
const EChart = lazy(loadEChart);

/**
 * Starts fetching ECharts' code as a page that draws charts opens, so that it arrives while the page's data is asked for
 * rather than after (a chart is rendered only once its data is there). Fetched once; later calls cost nothing.
 */
export function preloadCharts(): void {
  void loadEChart();
}

/** Up to this many categories the values are listed under the chart; more (a trend's days) fold into a details. */
const LISTED_INLINE = 8;

export interface Series {
  name: string;
  values: number[];
}

/** A bar chart (one series) or a line chart (several, over `categories`), with the values listed below it. */
export function Chart({
  label,
  categories,
  series,
  kind = "bar",
}: {
  label: string;
  categories: string[];
  series: Series[];
  kind?: "bar" | "line";
}) {
  const option = {
    grid: { left: 48, right: 16, top: 16, bottom: series.length > 1 ? 56 : 32 },
    legend: series.length > 1 ? { bottom: 0 } : undefined,
    xAxis: { type: "category", data: categories },
    yAxis: { type: "value", minInterval: 1 },
    series: series.map((s) => ({ name: s.name, type: kind, data: s.values })),
  };
  const values = (
    <ul className="chart-values">
      {categories.map((c, i) => (
        <li key={c}>
          {c}: {series.map((s) => `${series.length > 1 ? `${s.name} ` : ""}${s.values[i] ?? 0}`).join(", ")}
        </li>
      ))}
    </ul>
  );
  return (
    <figure className="chart-figure">
      <figcaption>{label}</figcaption>
      <Suspense fallback={<div className="chart" role="status" aria-label={`${label}: loading`} />}>
        <EChart option={option} label={label} />
      </Suspense>
      {categories.length > LISTED_INLINE ? (
        <details>
          <summary>The values</summary>
          {values}
        </details>
      ) : (
        values
      )}
    </figure>
  );
}
