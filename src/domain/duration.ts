/**
 * Durations of load profiles, written as k6 writes them (https://grafana.com/docs/k6/latest/using-k6/k6-options/reference/
 * — "durations are strings like `30s`, `5m`, `1h30m`, or numbers of milliseconds"). Go's
 * `time.ParseDuration` units (`ms`, `s`, `m`, `h`, plus `us`/`µs`), decimals allowed (`1.5m`), and
 * `d` for days as k6 accepts it. A bare number is milliseconds. Results are whole milliseconds.
 */

const UNIT_MS: Record<string, number> = {
  us: 0.001,
  µs: 0.001,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};
const PART = /(\d+(?:\.\d+)?|\.\d+)(ms|us|µs|s|m|h|d)/y;

/** A duration that could not be read; `message` says what is expected. */
export class DurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DurationError';
  }
}

/**
 * Milliseconds of a k6 duration (`"30s"`, `"1m30s"`, `"500ms"`, `1500`).
 * @throws DurationError for anything else (empty, negative, unknown unit, not finite).
 */
export function parseDuration(value: unknown): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0)
      throw new DurationError(`must be a number of milliseconds >= 0, got ${value}`);
    return Math.round(value);
  }
  if (typeof value !== 'string')
    throw new DurationError('must be a duration like "30s", "5m", "1h30m" or a number of milliseconds');
  const text = value.trim();
  if (text === '0') return 0;
  if (text === '') throw new DurationError('must not be empty');
  let ms = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < text.length) {
    const at = PART.lastIndex;
    const match = PART.exec(text);
    if (!match || match.index !== at) {
      throw new DurationError(
        `"${value}" is not a duration: use numbers with units ms, s, m, h (e.g. "30s", "5m", "1h30m") or a number of milliseconds`,
      );
    }
    ms += Number(match[1]) * UNIT_MS[match[2]!]!;
  }
  return Math.round(ms);
}

/**
 * Milliseconds of a flow node's duration field (src/domain/types.ts `DurationValue`): a k6 duration
 * string as {@link parseDuration} reads it, or a number in `numberUnit` (seconds for `timeout`
 * fields, as every `timeout` of Assay is; milliseconds for intervals).
 * @throws DurationError
 */
export function nodeDurationMs(value: unknown, numberUnit: 'seconds' | 'ms'): number {
  if (typeof value === 'number') return parseDuration(numberUnit === 'seconds' ? value * 1000 : value);
  return parseDuration(value);
}

/** A duration for messages: `90s` → `1m30s`, `1500` → `1.5s`, `250` → `250ms`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  const sText = Number.isInteger(s) ? String(s) : s.toFixed(1).replace(/\.0$/, '');
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s || (!h && !m) ? `${sText}s` : ''}`;
}
