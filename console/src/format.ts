/** Formatting shared by the console's pages: durations (ms in), dates (ISO in), sizes (bytes in). */

/** `1.24 s`, `84 ms`, `2 min 3 s`; `—` for absent values. */
export function duration(ms: number | undefined | null): string {
  if (ms === undefined || ms === null || Number.isNaN(ms)) return '—';
  if (ms < 1000) return `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  const min = Math.floor(ms / 60_000);
  return `${min} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** Local date and time of an ISO timestamp (`2026-11-22 17:05:10`). */
export function dateTime(iso: string | undefined | null): string {
  if (!iso) return '—';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** "3 min ago", "in 20 s". */
export function relative(iso: string | undefined | null, now = Date.now()): string {
  if (!iso) return '—';
  const s = Math.round((new Date(iso).getTime() - now) / 1000);
  const a = Math.abs(s);
  const text =
    a < 60
      ? `${a} s`
      : a < 3600
        ? `${Math.round(a / 60)} min`
        : a < 86400
          ? `${Math.round(a / 3600)} h`
          : `${Math.round(a / 86400)} d`;
  return s < 0 ? `${text} ago` : `in ${text}`;
}

/** `512 B`, `1.5 KB`, `2.0 MB`. */
export function bytes(n: number | undefined | null): string {
  if (n === undefined || n === null) return '—';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** A value as the console shows it in tables: JSON for objects, the string itself otherwise. */
export function show(value: unknown): string {
  if (value === undefined) return '(nothing)';
  if (typeof value === 'string') return JSON.stringify(value);
  return JSON.stringify(value, null, 2);
}
