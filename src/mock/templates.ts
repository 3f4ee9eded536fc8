/**
 * Mock response templates (spec "Mock service behavior" 7 and 8), compiled once per design version,
 * not per request.
 *
 * With `dynamic` on, in every string of the body (and in header values):
 * - `{{paramName}}` becomes the path parameter of that name, else the query parameter;
 * - `{{faker.<module>.<function>}}` becomes a generated value (a call without arguments; only
 *   functions that exist on faker's modules; `__proto__` and the like are not reachable).
 * A string that is one placeholder and nothing else keeps the value's type (`"{{faker.number.int}}"`
 * becomes a number); inside longer text values are written as text. Unknown placeholders stay as
 * written. With `dynamic` off, nothing is replaced: placeholders are static text.
 * The body is JSON-serialised once when it has no placeholder to fill.
 */
import type { Faker } from '@faker-js/faker';

/** What a request offers to placeholders. */
export interface TemplateScope {
  params: Record<string, string>;
  query: Record<string, string>;
  faker: Faker;
}

type Part = { text: string } | { param: string } | { faker: [string, string] };
type Node =
  | { kind: 'static'; value: unknown }
  | { kind: 'string'; parts: Part[]; whole: boolean }
  | { kind: 'array'; items: Node[] }
  | { kind: 'object'; entries: Array<[Node, Node]> };

/** A compiled body: a ready string, or a renderer. */
export type CompiledBody = { static: string } | { render(scope: TemplateScope): string };

const PLACEHOLDER = /\{\{\s*([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*\}\}/g;
const FAKER = /^faker\.([A-Za-z]+)\.([A-Za-z]+)$/;

function compileString(text: string): Node {
  const parts: Part[] = [];
  let last = 0;
  for (const m of text.matchAll(PLACEHOLDER)) {
    if (m.index! > last) parts.push({ text: text.slice(last, m.index) });
    const name = m[1]!;
    const f = FAKER.exec(name);
    parts.push(f ? { faker: [f[1]!, f[2]!] } : name.includes('.') ? { text: m[0] } : { param: name });
    last = m.index! + m[0].length;
  }
  if (parts.length === 0) return { kind: 'static', value: text };
  if (last < text.length) parts.push({ text: text.slice(last) });
  return { kind: 'string', parts, whole: parts.length === 1 && !('text' in parts[0]!) };
}

function compileNode(value: unknown): Node {
  if (typeof value === 'string') return compileString(value);
  if (Array.isArray(value)) {
    const items = value.map(compileNode);
    return items.every((i) => i.kind === 'static') ? { kind: 'static', value } : { kind: 'array', items };
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([k, v]) => [compileString(k), compileNode(v)] as [Node, Node]);
    return entries.every(([k, v]) => k.kind === 'static' && v.kind === 'static')
      ? { kind: 'static', value }
      : { kind: 'object', entries };
  }
  return { kind: 'static', value };
}

const FORBIDDEN = new Set([
  'constructor',
  'prototype',
  '__proto__',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
  'hasOwnProperty',
  'toString',
  'valueOf',
]);

/** Calls faker.<module>.<fn>() when it is a real faker function; undefined otherwise. */
function fake(faker: Faker, module: string, fn: string): unknown {
  if (FORBIDDEN.has(module) || FORBIDDEN.has(fn) || !Object.prototype.hasOwnProperty.call(faker, module))
    return undefined;
  const mod = (faker as unknown as Record<string, Record<string, unknown>>)[module];
  if (!mod || typeof mod !== 'object') return undefined;
  const f = mod[fn];
  if (typeof f !== 'function') return undefined;
  try {
    return (f as () => unknown).call(mod);
  } catch {
    return undefined;
  }
}

function partValue(part: Part, scope: TemplateScope): unknown {
  if ('text' in part) return part.text;
  if ('param' in part) {
    if (Object.prototype.hasOwnProperty.call(scope.params, part.param)) return scope.params[part.param];
    if (Object.prototype.hasOwnProperty.call(scope.query, part.param)) return scope.query[part.param];
    return undefined;
  }
  return fake(scope.faker, part.faker[0], part.faker[1]);
}

function original(part: Part): string {
  if ('text' in part) return part.text;
  if ('param' in part) return `{{${part.param}}}`;
  return `{{faker.${part.faker[0]}.${part.faker[1]}}}`;
}

function renderNode(node: Node, scope: TemplateScope): unknown {
  switch (node.kind) {
    case 'static':
      return node.value;
    case 'string': {
      if (node.whole) {
        const v = partValue(node.parts[0]!, scope);
        return v === undefined ? original(node.parts[0]!) : v;
      }
      let out = '';
      for (const part of node.parts) {
        const v = partValue(part, scope);
        out += v === undefined ? original(part) : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
      }
      return out;
    }
    case 'array':
      return node.items.map((i) => renderNode(i, scope));
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of node.entries) out[String(renderNode(k, scope))] = renderNode(v, scope);
      return out;
    }
  }
}

/** Compiles a response body. `dynamic` off: always the same bytes. */
export function compileBody(data: unknown, dynamic: boolean): CompiledBody {
  if (data === undefined) return { static: '' };
  const node = dynamic ? compileNode(data) : ({ kind: 'static', value: data } as Node);
  if (node.kind === 'static') return { static: JSON.stringify(node.value) };
  return { render: (scope) => JSON.stringify(renderNode(node, scope)) };
}

/** Compiled headers: fixed values, or a renderer. */
export type CompiledHeaders =
  { static: Record<string, string> } | { render(scope: TemplateScope): Record<string, string> };

/** Compiles header values (rendered as text); names are lower-cased. */
export function compileHeaders(headers: Record<string, string> | undefined, dynamic: boolean): CompiledHeaders {
  const entries = Object.entries(headers ?? {}).map(
    ([k, v]) => [k.toLowerCase(), dynamic ? compileString(v) : ({ kind: 'static', value: v } as Node)] as const,
  );
  if (entries.every(([, n]) => n.kind === 'static')) {
    return { static: Object.fromEntries(entries.map(([k, n]) => [k, String((n as { value: unknown }).value)])) };
  }
  return { render: (scope) => Object.fromEntries(entries.map(([k, n]) => [k, String(renderNode(n, scope))])) };
}
