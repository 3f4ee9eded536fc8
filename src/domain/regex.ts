/**
 * User regular expressions on a linear-time engine.
 *
 * JavaScript's RegExp backtracks: `^(a|a)*$` on 30 characters takes seconds and blocks the thread
 * it runs on (the worker's workflow thread, or the API). Every regular expression a user writes —
 * `matches` assertions, JSON Schema `pattern` / `patternProperties` (ajv), JSONata regex literals
 * (`$match`, `$replace`, `$contains`, `$split`, `~>`) — runs here on RE2 instead (`re2js`, a pure
 * JavaScript port of RE2: time linear in the input, no native code, so it works inside Temporal's
 * workflow sandbox).
 *
 * Syntax (docs/flows.md "Regular expressions"): JavaScript syntax as far as RE2 supports it
 * (RE2 syntax: https://github.com/google/re2/wiki/Syntax), translated by `RE2JS.translateRegExp`
 * (named groups `(?<n>…)`, `\u{…}`, `[^]`). Not supported, refused when a flow is saved:
 * backreferences (`\1`, `\k<name>`), lookahead and lookbehind (`(?=`, `(?!`, `(?<=`, `(?<!`),
 * repeat counts above 1,000, programs larger than {@link MAX_PROGRAM_SIZE}. Flags: `i`, `m`, `s`;
 * `g`, `y`, `d`, `u`, `v` are accepted and ignored (RE2 is always Unicode-aware). `\s` is ASCII
 * whitespace only.
 *
 * Pure module: no I/O, no Node built-ins (imported by workflow code).
 */
import { RE2JS } from 're2js';

/** A pattern RE2 cannot run, or that does not parse. `message` says why, for a 400 or a failed assertion. */
export class UnsupportedRegexError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedRegexError';
  }
}

const cache = new Map<string, RE2JS>();

/**
 * Largest compiled program accepted (RE2's `programSize`, roughly the instructions the matcher
 * steps through per input character): matching is linear in the input, but with this factor.
 */
export const MAX_PROGRAM_SIZE = 20_000;

/**
 * Compiles `source` (JavaScript regex syntax) with JavaScript `flags` into an RE2 program.
 *
 * @throws UnsupportedRegexError when the pattern does not parse or uses what RE2 cannot run in
 *   linear time (backreferences, lookaround), or a flag that is not a JavaScript flag.
 */
export function compileRegex(source: string, flags = ''): RE2JS {
  const key = `${flags}/${source}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const bad = /[^dgimsuvy]/.exec(flags);
  if (bad) throw new UnsupportedRegexError(`unknown flag "${bad[0]}"`);
  // translateRegExp turns `\k<name>` into the literal `k<name>`: refuse named backreferences first.
  if (/(^|[^\\])(\\\\)*\\k</.test(source))
    throw new UnsupportedRegexError(
      'backreferences (\\k<name>) are not supported: regular expressions run on RE2, which is linear-time',
    );
  let re: RE2JS;
  try {
    let f = 0;
    if (flags.includes('i')) f |= RE2JS.CASE_INSENSITIVE;
    if (flags.includes('m')) f |= RE2JS.MULTILINE;
    if (flags.includes('s')) f |= RE2JS.DOTALL;
    re = RE2JS.compile(RE2JS.translateRegExp(source), f);
  } catch (err) {
    throw new UnsupportedRegexError(explain(err));
  }
  if (re.programSize() > MAX_PROGRAM_SIZE)
    throw new UnsupportedRegexError(
      `is too large (${re.programSize()} RE2 instructions, at most ${MAX_PROGRAM_SIZE}); use fewer or smaller repeat counts`,
    );
  if (cache.size > 1000) cache.clear();
  cache.set(key, re);
  return re;
}

/** RE2's parse error, with a hint when it is a feature RE2 leaves out on purpose. */
function explain(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (/invalid escape sequence: `\\[1-9]/.test(message))
    return `backreferences are not supported (${message}): regular expressions run on RE2, which is linear-time`;
  if (/\(\?[=!]|\(\?<[=!]|invalid named capture: `\(\?<[=!]/.test(message))
    return `lookahead and lookbehind are not supported (${message}): regular expressions run on RE2, which is linear-time`;
  return message;
}

/** Checks that a pattern can run; returns the reason it cannot, or null. */
export function checkRegex(source: string, flags = ''): string | null {
  try {
    compileRegex(source, flags);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * A stand-in for the parts of `RegExp` that JSONata (its `RegexEngine` option) and ajv (its
 * `code.regExp` option) use: `exec` from `lastIndex` (always global), `test`, `source`, `flags`.
 * Indexes are UTF-16 code units, as with RegExp.
 */
export class LinearRegExp {
  readonly source: string;
  readonly flags: string;
  /** Where the next `exec` starts; set to the end of a match, 0 after a miss (RegExp's global behaviour). */
  lastIndex = 0;
  private readonly re: RE2JS;

  /** `new LinearRegExp(/a+/i)` or `new LinearRegExp('a+', 'i')`. @throws UnsupportedRegexError */
  constructor(pattern: RegExp | string, flags?: string) {
    this.source = typeof pattern === 'string' ? pattern : pattern.source;
    this.flags = flags ?? (typeof pattern === 'string' ? '' : pattern.flags);
    this.re = compileRegex(this.source, this.flags);
  }

  /** Like RegExp#exec with the `g` flag: searches from `lastIndex`. */
  exec(input: string): RegExpExecArray | null {
    const text = String(input);
    if (this.lastIndex > text.length) {
      this.lastIndex = 0;
      return null;
    }
    const m = this.re.matcher(text);
    if (!m.find(this.lastIndex)) {
      this.lastIndex = 0;
      return null;
    }
    const groups: Array<string | undefined> = [];
    for (let g = 0; g <= m.groupCount(); g++) groups.push(m.group(g) ?? undefined);
    const result = Object.assign(groups, { index: m.start(), input: text }) as unknown as RegExpExecArray;
    this.lastIndex = m.end();
    return result;
  }

  /** Whether the pattern matches anywhere in `input` (ignores and keeps `lastIndex`). */
  test(input: string): boolean {
    return this.re.test(String(input));
  }

  toString(): string {
    return `/${this.source}/${this.flags}`;
  }
}

/**
 * ajv's `code.regExp` engine (ajv docs "Options": `code.regExp`): JSON Schema `pattern` and
 * `patternProperties` run on RE2; a pattern RE2 cannot run makes the schema fail to compile.
 * `code` only matters for standalone code generation, which Assay does not use.
 */
export const ajvRegExp = Object.assign((pattern: string, u: string) => new LinearRegExp(pattern, u), {
  code: 'new LinearRegExp',
});
