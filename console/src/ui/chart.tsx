/**
 * A time-series chart (uPlot): x in Unix seconds (or elapsed seconds), one or more series. Sized to its container
 * (ResizeObserver) with a fixed height, so live data never moves the layout. The y axes' labels are
 * compact (`20k`, `1.5M`) and each axis is as wide as its longest label (uPlot's fixed 50 px cut
 * `20,000` to `0,000`); series on `axis: 'right'` (VUs beside requests per second) get their own
 * scale and axis on the right.
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
  /** The y axis the series is read on: the left one (default) or a right one of its own scale. */
  axis?: 'left' | 'right';
}

/**
 * An axis label in few characters: `950`, `2.5`, `0.25`, `20k`, `12.5k`, `1.5M` (at most two
 * decimals below 1,000, one above, trailing zeros dropped).
 */
export function compactNumber(v: number): string {
  const trim = (text: string) => (text.includes('.') ? text.replace(/\.?0+$/, '') : text);
  const a = Math.abs(v);
  if (a >= 1e9) return `${trim((v / 1e9).toFixed(1))}G`;
  if (a >= 1e6) return `${trim((v / 1e6).toFixed(1))}M`;
  if (a >= 1e3) return `${trim((v / 1e3).toFixed(1))}k`;
  return trim(v.toFixed(2));
}

/** An axis as wide as its longest label (uPlot's `size` hook; the label font measured on the canvas). */
function axisSize(u: uPlot, values: string[] | null, axisIdx: number, cycleNum: number): number {
  const axis = u.axes[axisIdx]!;
  // uPlot asks again while the layout settles; past the first round keep the size it has.
  if (cycleNum > 1) return (axis as unknown as { _size: number })._size;
  let size = (axis.ticks?.size ?? 10) + (axis.gap ?? 5) + 4;
  const longest = (values ?? []).reduce((acc, v) => (String(v).length > acc.length ? String(v) : acc), '');
  if (longest) {
    u.ctx.font = (axis.font as unknown as [string])[0];
    size += u.ctx.measureText(longest).width / devicePixelRatio;
  }
  // At least wide enough for half the x axis' first date label (`11/26/26 1:39pm`, centred on the plot's edge).
  return Math.max(MIN_AXIS_SIZE, Math.ceil(size));
}

/** The narrowest y axis, CSS px. */
const MIN_AXIS_SIZE = 60;

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

/** Tick steps of the right axis: whole numbers (VUs are counted, never 0.5). */
const WHOLE_INCREMENTS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1e3, 2e3, 2.5e3, 5e3, 1e4, 2e4, 5e4, 1e5];

/** Tick steps of the x axis, seconds: 1 s up to a day. */
const SECOND_INCREMENTS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 21600, 43200, 86400];

/** The right scale from 0 to a little above its highest value (VUs: whole numbers, never a flat line at the top). */
function rightRange(_u: uPlot, _min: number, max: number): uPlot.Range.MinMax {
  return [0, Math.max(1, Math.ceil(max * 1.1))];
}

/** A line chart of `series` over `times` (Unix seconds). */
export function Chart({ title, times, series, height = 220, xTime = true, dashes = [] }: ChartProps) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const key = series.map((s) => `${s.label}:${s.axis ?? 'left'}`).join('|');

  useEffect(() => {
    const el = host.current!;
    const right = series.filter((s) => s.axis === 'right');
    const yAxis = (scale: string): uPlot.Axis => ({
      scale,
      stroke: 'currentColor',
      grid: { stroke: 'rgba(128,128,128,0.2)' },
      values: (_u, splits) => splits.map(compactNumber),
      size: axisSize,
    });
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
          ...(s.axis === 'right' ? { scale: 'right' } : {}),
          value: (_u: uPlot, v: number | null) =>
            v === null ? '—' : `${v.toFixed(v < 10 ? 2 : 0)}${s.unit ? ` ${s.unit}` : ''}`,
        })),
      ],
      axes: [
        // x: whole seconds (the points are per second; no `:14.250` ticks between them).
        { stroke: 'currentColor', grid: { stroke: 'rgba(128,128,128,0.2)' }, incrs: SECOND_INCREMENTS },
        yAxis('y'),
        ...(right.length
          ? [
              {
                ...yAxis('right'),
                side: 1,
                grid: { show: false },
                incrs: WHOLE_INCREMENTS,
                label: right.map((s) => s.label).join(', '),
              },
            ]
          : []),
      ],
      scales: { x: { time: xTime }, ...(right.length ? { right: { range: rightRange } } : {}) },
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
