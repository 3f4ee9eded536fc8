/**
 * The format assertion operators (`isEmail`, `isUrl`, `isUuid`, `isIso8601`, `isJson`): whether a
 * string is in a well-known textual format, each following a published standard named below.
 * docs/flows.md "Assertions" lists them; docs/spec-choices.md records the choices the standards
 * leave open.
 *
 * Every check takes the target's value and answers null when it holds, else why not. A value that
 * is not a string never holds (`isJson` included: a response body that was JSON is already parsed
 * into an object; assert on its type with `isType`).
 *
 * Pure module (runs inside the workflow sandbox): no Node built-ins, no WHATWG `URL`. The regular
 * expressions are fixed (never user input) and unambiguous (each repetition is delimited), so they
 * run in time linear in the input on JavaScript's engine.
 */

/** The format operators, in documented order. */
export const FORMAT_OPERATORS = ['isEmail', 'isUrl', 'isUuid', 'isIso8601', 'isJson'] as const;
export type FormatOperator = (typeof FORMAT_OPERATORS)[number];

/** True for the operators of this module. */
export function isFormatOperator(operator: string): operator is FormatOperator {
  return (FORMAT_OPERATORS as readonly string[]).includes(operator);
}

/**
 * The HTML Living Standard's "valid e-mail address"
 * (https://html.spec.whatwg.org/multipage/input.html#valid-e-mail-address), the very pattern it
 * gives: a willful violation of RFC 5322 that matches what people type (no quoted local parts, no
 * comments, host names of LDH labels of at most 63 characters; no top-level domain required).
 */
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

// RFC 3986 §2 and Appendix A, as character classes.
const UNRESERVED = 'A-Za-z0-9\\-._~';
const SUB_DELIMS = "!$&'()*+,;=";
const PCT_ENCODED = '%[0-9A-Fa-f]{2}';
const PCHAR = `(?:[${UNRESERVED}${SUB_DELIMS}:@]|${PCT_ENCODED})`;

/**
 * An absolute URL: RFC 3986 §4.3 `absolute-URI` (with an optional §3.5 fragment, as in §3 `URI`)
 * whose hier-part has an authority with a non-empty host, `scheme://[userinfo@]host[:port]path?query#fragment`.
 * `scheme` = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) (§3.1); `host` = an IP-literal in brackets
 * (§3.2.2: IPv6 or IPvFuture; the IPv6 form is checked for its characters only) or a non-empty
 * reg-name (IPv4 addresses are reg-names syntactically); `port` = *DIGIT; path, query and fragment
 * of pchar and percent-encodings. A URI without an authority (`mailto:a@b.c`, `urn:isbn:…`) or a
 * bare `host:port` is not a URL here.
 */
const URL_PATTERN = new RegExp(
  `^[A-Za-z][A-Za-z0-9+.-]*://` +
    `(?:(?:[${UNRESERVED}${SUB_DELIMS}:]|${PCT_ENCODED})*@)?` +
    `(?:\\[(?:[0-9A-Fa-f:.]+|v[0-9A-Fa-f]+\\.[${UNRESERVED}${SUB_DELIMS}:]+)\\]|(?:[${UNRESERVED}${SUB_DELIMS}]|${PCT_ENCODED})+)` +
    `(?::[0-9]*)?` +
    `(?:/${PCHAR}*)*` +
    `(?:\\?(?:${PCHAR}|[/?])*)?` +
    `(?:#(?:${PCHAR}|[/?])*)?$`,
);

/**
 * RFC 9562 §4 "UUID Format": 32 hexadecimal digits in groups of 8-4-4-4-12 separated by hyphens,
 * upper or lower case (case-insensitive on input, §4). Any version and variant, the Nil and Max
 * UUIDs (§5.9, §5.10) included; no braces, no `urn:uuid:` prefix.
 */
const UUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

/**
 * RFC 3339 §5.6 `full-date` and `date-time`: `2026-11-20`, `2026-11-20T09:30:00Z`,
 * `2026-11-20T09:30:00.512+01:00`. `T` and `Z` in either case (§5.6 NOTE); a space instead of `T`
 * too (the same NOTE allows it "for the sake of readability"). Seconds up to 60 (a leap second,
 * §5.7); the day checked against its month and leap years (§5.7, Appendix C).
 */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2})))?$/;

function kind(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** `"text…"` cut to 100 characters, for messages. */
function quoted(text: string): string {
  return JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text);
}

function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Why `text` is not an RFC 3339 date or date-time, or null when it is one. */
function dateTimeProblem(text: string): string | null {
  const m = DATE_TIME.exec(text);
  if (!m) return 'not in the form YYYY-MM-DD or YYYY-MM-DDThh:mm:ss[.frac](Z|±hh:mm)';
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12) return `month ${m[2]} is not 01 to 12`;
  if (day < 1 || day > daysIn(year, month)) return `day ${m[3]} does not exist in ${m[1]}-${m[2]}`;
  if (m[4] === undefined) return null;
  if (Number(m[4]) > 23) return `hour ${m[4]} is not 00 to 23`;
  if (Number(m[5]) > 59) return `minute ${m[5]} is not 00 to 59`;
  if (Number(m[6]) > 60) return `second ${m[6]} is not 00 to 60`;
  if (m[7] !== undefined && (Number(m[7]) > 23 || Number(m[8]) > 59)) return 'the offset is not -23:59 to +23:59';
  return null;
}

/**
 * Checks `value` against a format operator: null when it holds, else a message saying why not
 * (`expected an e-mail address, got "bob@" (string)`).
 */
export function checkFormat(operator: FormatOperator, value: unknown): string | null {
  const what = {
    isEmail: 'an e-mail address',
    isUrl: 'an absolute URL',
    isUuid: 'a UUID',
    isIso8601: 'an RFC 3339 (ISO 8601) date or date-time',
    isJson: 'a string of JSON text',
  }[operator];
  if (typeof value !== 'string') return `expected ${what}, got ${kind(value)}`;
  const fail = (why?: string) => `expected ${what}, got ${quoted(value)}${why ? `: ${why}` : ''}`;
  switch (operator) {
    case 'isEmail':
      return EMAIL.test(value) ? null : fail();
    case 'isUrl':
      return URL_PATTERN.test(value) ? null : fail();
    case 'isUuid':
      return UUID.test(value) ? null : fail();
    case 'isIso8601': {
      const why = dateTimeProblem(value);
      return why === null ? null : fail(why);
    }
    case 'isJson':
      try {
        JSON.parse(value);
        return null;
      } catch (err) {
        return fail((err as Error).message);
      }
  }
}
