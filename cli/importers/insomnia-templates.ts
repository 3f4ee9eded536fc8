/**
 * Insomnia's Nunjucks templates as Assay's `{{variable}}` templates (docs/import-insomnia.md
 * "Templates"), for cli/importers/insomnia.ts. Insomnia renders request fields with Nunjucks
 * (https://docs.insomnia.rest/insomnia/template-tags, Kong/insomnia packages/insomnia/src/templating):
 *
 * | Insomnia | Assay |
 * |---|---|
 * | `{{ _.name }}`, `{{ name }}`, `{{ _['name'] }}`, `{{ _.obj.field }}` | `{{name}}`, `{{obj.field}}` |
 * | `{{ name \| filter }}` | `{{name}}`, the filter reported |
 * | `{% response 'body'\|'header'\|'raw', 'req_…', filter, trigger, maxAge %}` | `{{<variable>}}` the referenced request's node extracts (via `chain`) |
 * | `{% uuid 'v4' %}` | `{{$guid}}` |
 * | `{% now 'iso-8601' %}`, `{% now 'unix' %}` | `{{$isoTimestamp}}`, `{{$timestamp}}` (Unix seconds) |
 * | `{% base64 'encode'\|'decode', 'normal'\|'url'\|'hex', 'literal' %}` | the result, computed at import when the value is a literal |
 * | other tags (`faker`, `prompt`, `cookie`, `request`, `hash`, `jsonpath`, `file`, `now 'millis'`, …) | left as written, reported |
 */

/** A `{% response %}` tag's arguments (Insomnia's response tag: attribute, request id, filter, trigger, max age). */
export interface ResponseTag {
  attribute: string;
  requestId: string;
  /** The filter, decoded from Insomnia's `b64::<base64>::46b` form: a JSONPath, an XPath or a header name. */
  filter: string;
  /** `never`, `no-history`, `when-expired`, `always` (Insomnia's "trigger behaviour"). */
  trigger: string;
}

/** What a template became: the text, what was carried (in words) and what was not. */
export interface Converted {
  text: string;
  carried: string[];
  notCarried: string[];
}

/**
 * Answers the variable a response tag becomes (`{{variable}}`), or a reason it cannot be carried.
 */
export type ChainResolver = (tag: ResponseTag) => { variable: string } | { error: string };

const IDENT_PATH = /^[A-Za-z_$][\w$-]*(\.[A-Za-z_$][\w$-]*|\[\d+\])*$/;

/** Decodes Insomnia's `b64::<base64>::46b` argument encoding (its response tag stores filters so). */
export function decodeTagArgument(value: string): string {
  const m = /^b64::(.*)::46b$/s.exec(value);
  return m ? Buffer.from(m[1]!, 'base64').toString('utf8') : value;
}

/** The arguments of a tag (`'a', "b", 60, true`): strings unquoted, numbers and booleans as text. */
export function tagArguments(text: string): string[] | null {
  const args: string[] = [];
  const re = /\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|(-?\d+(?:\.\d+)?|true|false|null))\s*(,|$)/gy;
  let m: RegExpExecArray | null;
  let at = 0;
  while (at < text.length && (m = re.exec(text))) {
    args.push((m[1] ?? m[2] ?? m[3] ?? '').replace(/\\(.)/g, '$1'));
    at = re.lastIndex;
    if (!m[4]) break;
  }
  return at >= text.trim().length || text.slice(at).trim() === '' ? args : null;
}

/** A variable reference of `{{ … }}` (`_.a.b`, `a`, `_['a b']`) as Assay's path, or null for an expression. */
function variablePath(expr: string): string | null {
  let e = expr.trim();
  const bracket = /^_\[\s*(['"])(.+?)\1\s*\]((?:\.[A-Za-z_$][\w$-]*|\[\d+\])*)$/.exec(e);
  if (bracket) return `${bracket[2]}${bracket[3]}`;
  if (e.startsWith('_.')) e = e.slice(2);
  return IDENT_PATH.test(e) ? e : null;
}

/** `{% base64 action, kind, value %}` of a literal value, or null when it cannot be computed at import. */
function base64Tag(args: string[]): string | null {
  const [action, kind, value] = args;
  if (value === undefined || /\{\{|\{%/.test(value)) return null;
  if (action === 'encode') {
    if (kind === 'hex') return Buffer.from(value, 'hex').toString('base64');
    const b = Buffer.from(value, 'utf8');
    return kind === 'url' ? b.toString('base64url') : b.toString('base64');
  }
  if (action === 'decode') {
    const b = Buffer.from(value, kind === 'url' ? 'base64url' : 'base64');
    return kind === 'hex' ? b.toString('hex') : b.toString('utf8');
  }
  return null;
}

/**
 * Converts Insomnia template syntax in `text` (the rules in this module's header). `chain` answers
 * response tags; without it they are reported. Never throws.
 */
export function convertTemplate(text: string, chain?: ChainResolver): Converted {
  const carried: string[] = [];
  const notCarried: string[] = [];
  const out = text.replace(/\{\{([\s\S]*?)\}\}|\{%-?([\s\S]*?)-?%\}/g, (whole, expr?: string, tag?: string) => {
    if (expr !== undefined) {
      const [head, ...filters] = expr.split('|');
      const path = variablePath(head!);
      if (!path) {
        notCarried.push(`template expression {{${expr}}} is not a variable: left as written`);
        return whole;
      }
      if (filters.length)
        notCarried.push(
          `Nunjucks filter "${filters.map((f) => f.trim()).join(' | ')}" on {{${path}}} is not carried: the variable is sent unfiltered`,
        );
      return `{{${path}}}`;
    }
    const body = (tag ?? '').trim();
    const name = /^[A-Za-z_][\w]*/.exec(body)?.[0] ?? '';
    const args = tagArguments(body.slice(name.length)) ?? [];
    switch (name) {
      case 'response': {
        const [attribute = '', requestId = '', filter = '', trigger = 'never'] = args;
        if (!chain) {
          notCarried.push(`response tag on ${requestId || 'no request'}: not carried here`);
          return whole;
        }
        const r = chain({ attribute, requestId, filter: decodeTagArgument(filter), trigger });
        if ('error' in r) {
          notCarried.push(r.error);
          return whole;
        }
        carried.push(`response tag → {{${r.variable}}}`);
        return `{{${r.variable}}}`;
      }
      case 'uuid':
        if (!args[0] || args[0] === 'v4') {
          carried.push('{% uuid %} → {{$guid}}');
          return '{{$guid}}';
        }
        break;
      case 'now':
        if (!args[0] || args[0] === 'iso-8601') {
          carried.push('{% now %} → {{$isoTimestamp}}');
          return '{{$isoTimestamp}}';
        }
        if (args[0] === 'unix') {
          carried.push("{% now 'unix' %} → {{$timestamp}}");
          return '{{$timestamp}}';
        }
        break;
      case 'base64': {
        const value = base64Tag(args);
        if (value !== null) {
          carried.push('{% base64 %} computed at import');
          return value;
        }
        break;
      }
    }
    notCarried.push(
      `template tag {% ${body.length > 60 ? `${body.slice(0, 60)}…` : body} %} has no Assay equivalent: left as written`,
    );
    return whole;
  });
  return { text: out, carried, notCarried };
}

/**
 * A JSONPath of Insomnia's response tag (`$.data`, `$.items[0].id`, `$['a b']`) as JSONata over
 * the response body (`response.body.data`), or null for what JSONata paths do not say the same
 * way (wildcards, filters, recursive descent, slices).
 */
export function jsonPathToJsonata(path: string): string | null {
  const p = path.trim();
  if (!p.startsWith('$')) return null;
  let rest = p.slice(1);
  let out = 'response.body';
  while (rest) {
    let m: RegExpExecArray | null;
    if ((m = /^\.([A-Za-z_$][\w$]*)/.exec(rest))) out += `.${m[1]}`;
    else if ((m = /^\[(\d+)\]/.exec(rest))) out += `[${m[1]}]`;
    else if ((m = /^\[\s*'([^'`]+)'\s*\]/.exec(rest)) || (m = /^\[\s*"([^"`]+)"\s*\]/.exec(rest)))
      out += `.\`${m[1]}\``;
    else return null;
    rest = rest.slice(m[0].length);
  }
  return out;
}
