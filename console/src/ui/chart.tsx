/**
 * A time-series chart (uPlot): x in Unix seconds (or elapsed seconds), one or more series. Sized to its container
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
  /** `times` are Unix seconds (default) or plain seconds (elapsed time: two runs overlaid). */
  xTime?: boolean;
  /** Line style of a series' stroke, by index: dashes (`[6, 4]`) for a base run drawn under its head. */
  dashes?: (number[] | undefined)[];
}

/** A line chart of `series` over `times` (Unix seconds). */
export function Chart({ title, times, series, height = 220, xTime = true, dashes = [] }: ChartProps) {
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
        ...series.map((s, i) => ({
          label: s.label,
          stroke: s.color,
          width: 2,
          ...(dashes[i] ? { dash: dashes[i] } : {}),
          value: (_u: uPlot, v: number | null) =>
            v === null ? '—' : `${v.toFixed(v < 10 ? 2 : 0)}${s.unit ? ` ${s.unit}` : ''}`,
        })),
      ],
      axes: [
        { stroke: 'currentColor', grid: { stroke: 'rgba(128,128,128,0.2)' } },
        { stroke: 'currentColor', grid: { stroke: 'rgba(128,128,128,0.2)' } },
      ],
      scales: { x: { time: xTime } },
    };
    plot.current = new uPlot(opts, [times, ...series.map((s) => s.values)] as uPlot.AlignedData, el);
    const ro = new ResizeObserver(() => plot.current?.setSize({ width: el.clientWidth, height }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [key, height, xTime]);

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
