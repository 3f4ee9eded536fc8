/**
 * A time-series chart (uPlot): x in Unix seconds, one or more series. Sized to its container
 * (ResizeObserver) with a fixed height, so live data never moves the layout.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  values: (number | null)[];
  color: string;
  /** Unit shown after values in the legend (`ms`, `req/s`). */
  unit?: string;
}

export interface ChartProps {
  /** Accessible description of the chart (it is a canvas). */
  title: string;
  times: number[];
  series: ChartSeries[];
  height?: number;
}

/** A line chart of `series` over `times` (Unix seconds). */
export function Chart({ title, times, series, height = 220 }: ChartProps) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const key = series.map((s) => s.label).join('|');

  useEffect(() => {
    const el = host.current!;
    const opts: uPlot.Options = {
      width: el.clientWidth || 600,
      height,
      series: [
        {},
        ...series.map((s) => ({
          label: s.label,
          stroke: s.color,
          width: 2,
          value: (_u: uPlot, v: number | null) =>
            v === null ? '—' : `${v.toFixed(v < 10 ? 2 : 0)}${s.unit ? ` ${s.unit}` : ''}`,
        })),
      ],
      axes: [
        { stroke: 'currentColor', grid: { stroke: 'rgba(128,128,128,0.2)' } },
        { stroke: 'currentColor', grid: { stroke: 'rgba(128,128,128,0.2)' } },
      ],
      scales: { x: { time: true } },
    };
    plot.current = new uPlot(opts, [times, ...series.map((s) => s.values)] as uPlot.AlignedData, el);
    const ro = new ResizeObserver(() => plot.current?.setSize({ width: el.clientWidth, height }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [key, height]);

  useEffect(() => {
    plot.current?.setData([times, ...series.map((s) => s.values)] as uPlot.AlignedData);
  }, [times, series]);

  return (
    <figure class="chart" style={{ minHeight: `${height + 40}px` }}>
      <figcaption>{title}</figcaption>
      <div ref={host} role="img" aria-label={title} />
    </figure>
  );
}
