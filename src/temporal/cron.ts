/**
 * The cron rules of Temporal's schedule spec parser, so a schedule Temporal would refuse is refused
 * when it is saved instead of staying `pending` forever.
 *
 * Source: temporalio/temporal `service/worker/scheduler/calendar.go` (`parseCronString`,
 * `makeRange`, `parseValue`), which the frontend applies to `cron_expressions` on create/update.
 * A field is a comma-separated list of parts; a part is `*`, `v`, `v-w`, each optionally `/step`
 * (step an integer ≥ 1; `v/step` runs from v to the field's maximum); `v` is a decimal integer in
 * the field's range, or for months a name prefix of at least three letters (`jan`, `sept`), for
 * days of week a prefix of at least two (`mo`, `sun`); 7 is Sunday too. In a range, the end must not
 * be before the start. Nothing else: `?`, `L`, `W`, `#`, `H` and empty parts are refused. Assay
 * accepts the five-field form only (minute hour day-of-month month day-of-week).
 */

type Mode = 'int' | 'month' | 'dow';

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** The five fields: name, range, name mode. */
const FIELDS: Array<{ name: string; min: number; max: number; mode: Mode }> = [
  { name: 'minute', min: 0, max: 59, mode: 'int' },
  { name: 'hour', min: 0, max: 23, mode: 'int' },
  { name: 'day-of-month', min: 1, max: 31, mode: 'int' },
  { name: 'month', min: 1, max: 12, mode: 'month' },
  { name: 'day-of-week', min: 0, max: 7, mode: 'dow' },
];

/** Go's strconv.Atoi on what a cron field can hold: optional sign, decimal digits. */
function atoi(s: string): number | null {
  return /^[+-]?\d{1,9}$/.test(s) ? Number(s) : null;
}

/** A value of a field (parseValue in calendar.go); a message when it is not one. */
function parseValue(s: string, min: number, max: number, mode: Mode): number | string {
  const lower = s.toLowerCase();
  if (mode === 'month' && s.length >= 3) {
    const i = MONTHS.findIndex((m) => m.startsWith(lower));
    if (i >= 0) return i + 1 < min || i + 1 > max ? `"${s}" is out of range` : i + 1;
  }
  if (mode === 'dow' && s.length >= 2) {
    const i = DAYS.findIndex((d) => d.startsWith(lower));
    if (i >= 0) return i < min || i > max ? `"${s}" is out of range` : i;
  }
  const n = atoi(s);
  if (n === null)
    return `"${s}" is not a number${mode === 'month' ? ' or month name' : mode === 'dow' ? ' or day name' : ''}`;
  if (n < min || n > max) return `${n} is out of range ${min}-${max}`;
  return n;
}

/** Checks one field (makeRange in calendar.go); a message when Temporal would refuse it. */
function fieldProblem(text: string, min: number, max: number, mode: Mode): string | null {
  for (let part of text.split(',')) {
    if (part.includes('/')) {
      const pieces = part.split('/');
      if (pieces.length !== 2) return `"${part}" has more than one /`;
      const step = atoi(pieces[1]!);
      if (step === null) return `step "${pieces[1]}" is not a number`;
      if (step < 1) return `step ${step} is below 1`;
      part = pieces[0]!;
    }
    if (part === '*') continue;
    if (part.includes('-')) {
      const bounds = part.split('-');
      if (bounds.length !== 2) return `"${part}" is not a range a-b`;
      const start = parseValue(bounds[0]!, min, max, mode);
      if (typeof start === 'string') return start;
      const end = parseValue(bounds[1]!, start, max, mode);
      if (typeof end === 'string') return `range "${part}": ${end}`;
    } else {
      const value = parseValue(part, min, max, mode);
      if (typeof value === 'string') return value;
    }
  }
  return null;
}

/**
 * Why Temporal's schedule parser would refuse the five-field cron `expression`, or null when it
 * accepts it. The message names the field (`day-of-month: "?" is not a number`).
 */
export function temporalCronProblem(expression: string): string | null {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5)
    return `must have five fields (minute hour day-of-month month day-of-week), got ${fields.length}`;
  for (const [i, f] of FIELDS.entries()) {
    const problem = fieldProblem(fields[i]!, f.min, f.max, f.mode);
    if (problem)
      return `${f.name}: ${problem} (Temporal's schedules accept *, numbers, names, a-b ranges, /steps and lists)`;
  }
  return null;
}
