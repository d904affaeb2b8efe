// An ECharts chart (canvas: the SVG renderer writes style attributes the CSP refuses). Loaded on demand by chart.tsx
// so that the first page's JavaScript does not carry ECharts. Only the chart types and components the pages use are
// registered, which keeps the chunk small. The canvas is an image labelled by the chart's title; its values are listed
// beside it as text (chart.tsx), so ECharts' own aria description is not used.
import { BarChart, LineChart } from "echarts/charts";
import { GridComponent, LegendComponent, TooltipComponent } from "echarts/components";
import * as echarts from "echarts/core";
import { CanvasRenderer } from "echarts/renderers";
import { useEffect, useRef } from "react";

echarts.use([BarChart, LineChart, GridComponent, LegendComponent, TooltipComponent, CanvasRenderer]);

export type ChartOption = echarts.EChartsCoreOption;

export default function EChart({ option, label }: { option: ChartOption; label: string }) {
  const ref = useRef<HTMLDivElement>(null);
  // The option is rebuilt on each render of the page: the chart is drawn again only when its content changes.
  const content = JSON.stringify(option);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const dark = document.documentElement.dataset.theme === "dark";
    const chart = echarts.init(element, dark ? "dark" : undefined);
    chart.setOption({
      backgroundColor: "transparent",
      tooltip: {},
      ...(JSON.parse(content) as ChartOption),
    });
    const resized = new ResizeObserver(() => chart.resize());
    resized.observe(element);
    return () => {
      resized.disconnect();
      chart.dispose();
    };
  }, [content]);
  return (
    <div role="img" aria-label={label}>
      <div ref={ref} className="chart" />
    </div>
  );
}
