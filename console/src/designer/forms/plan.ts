/**
 * The plan of a node's form, made from the server's own schemas (src/validation/flow-schemas.ts
 * `NODE_FIELDS` and `NODE_COMMON_PROPERTIES`): for a node type, the list of controls that edit its
 * fields, in schema order, each with its path, JSON pointer, label, hint (the schema's
 * `description`) and limits. Pure: no DOM, no Preact, compiled by the root tsconfig and unit tested
 * in node (test/unit/designer-forms.test.ts), so the forms stay in step with validation.
 *
 * Schema → control:
 *
 * | schema | control |
 * |---|---|
 * | `string` | `text` (`template` when it takes `{{…}}`), `expression` for JSONata fields |
 * | `integer`/`number` | `number` with `minimum`/`maximum` |
 * | `boolean` | `boolean` |
 * | `enum` | `select` |
 * | `anyOf` of strings and numbers (durations) | `scalar` (a number when the text is one) |
 * | other `anyOf`, `{}` | `json` (JSON text; a plain word is a string) |
 * | object with `additionalProperties` a schema | `map` (key/value rows) |
 * | object with `properties` | `fieldset` (`variant` when `allOf` chooses fields by `type`: `request.auth`) |
 * | array of objects | `rows`; of scalars: `list` |
 * | `SCRIPT_SCHEMA` | `script` (JavaScript editor) |
 * | `CHILD_NODES`, `SUB_FLOW_NODES` | skipped: the tree edits children |
 *
 * Widgets override the generic controls of the most used fields: `request` (API and Poll, with the
 * node's `server`, `authProfile`, `script` and `retry`; its `multipart` and `file` are body modes), `assertions` (every array of
 * `ASSERTION_SCHEMA`), `extractions` (the API node's `extract`), `testCase` (Ref `testCaseId`).
 *
 * A keyword the planner does not know ({@link KNOWN_KEYWORDS}) or a shape it has no control for
 * throws {@link PlanError}: a new schema feature must be taught here before the console builds.
 */
import {
  ASSERTION_SCHEMA,
  CHILD_NODES,
  NODE_COMMON_PROPERTIES,
  NODE_FIELDS,
  SCRIPT_SCHEMA,
  SUB_FLOW_NODES,
} from '../../../../src/validation/flow-schemas';
import type { AssertionOperator, FlowNodeType } from '../../../../src/domain/types';
import { labelOf } from './labels';

/** A field's place relative to the node: property names and array indexes (`['request', 'url']`). */
export type Path = readonly (string | number)[];

/** Where a text control takes its choices from (`FormContext` of NodeForm.tsx). */
export type OptionSource = 'servers' | 'authProfiles' | 'dataSets';

interface Base {
  /** Relative to the node. */
  path: Path;
  /** JSON pointer relative to the node (`/request/url`): errors with this pointer are shown here. */
  pointer: string;
  label: string;
  /** The schema's `description`. */
  hint?: string;
  /** Listed in the parent's `required`. */
  required: boolean;
  /** Top-level node fields this control renders (for the coverage test); empty below the top. */
  covers: string[];
}

export interface TextControl extends Base {
  kind: 'text';
  /** Takes `{{variable}}` placeholders (highlighted and completed). */
  template: boolean;
  /** A long text (gRPC `proto`): a multi-line editor. */
  multiline: boolean;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  /** Suggested values (`examples`). */
  examples?: string[];
  /** Choices from the form's context (a select that keeps an unknown current value). */
  options?: OptionSource;
}
export interface ExpressionControl extends Base {
  kind: 'expression';
}
export interface NumberControl extends Base {
  kind: 'number';
  integer: boolean;
  minimum?: number;
  maximum?: number;
}
export interface BooleanControl extends Base {
  kind: 'boolean';
  /** What the server assumes when the field is absent (the checkbox shows it; choosing it removes the field). */
  defaultValue: boolean;
}
export interface SelectControl extends Base {
  kind: 'select';
  options: string[];
}
/** A string or a number (durations: `"90s"` or `90`): a text input, a number when it reads as one. */
export interface ScalarControl extends Base {
  kind: 'scalar';
}
/** Any JSON value: JSON text, or plain text kept as a string. `inline`: a one-line input. */
export interface JsonControl extends Base {
  kind: 'json';
  inline: boolean;
}
/** A list of strings or numbers, written `a, b, c`. */
export interface ListControl extends Base {
  kind: 'list';
  /** Items may be numbers (`[429, "5xx"]`): `429` becomes a number. */
  numbers: boolean;
}
/** An object of name → value (headers, Context `set`, Ref inputs/outputs): key/value rows. */
export interface MapControl extends Base {
  kind: 'map';
  value: 'text' | 'expression' | 'multiline';
  /** Values take `{{variable}}` placeholders. */
  template: boolean;
  /** One row's noun: "Header", "Variable". */
  noun: string;
}
/** An array of objects: one group of `item` controls per row (their paths relative to the row). */
export interface RowsControl extends Base {
  kind: 'rows';
  noun: string;
  item: Control[];
}
export interface FieldsetControl extends Base {
  kind: 'fieldset';
  children: Control[];
}
/** An object whose fields depend on its `type` (`request.auth`): a select, then that type's fields. */
export interface VariantControl extends Base {
  kind: 'variant';
  discriminator: string;
  options: string[];
  variants: Record<string, Control[]>;
}
/** `SCRIPT_SCHEMA`: `code` in the JavaScript editor, `libs` as a list. */
export interface ScriptControl extends Base {
  kind: 'script';
  libs: ListControl;
}
export interface AssertionsControl extends Base {
  kind: 'assertions';
  minItems: number;
  /** What targets see: `response` on API and Poll nodes (docs/flows.md "What expressions see"). */
  response: boolean;
}
/** The API node's `extract`: variable name → JSONata over `{response, …}`. */
export interface ExtractionsControl extends Base {
  kind: 'extractions';
}
/** Ref `testCaseId`: a test case of the workspace. */
export interface TestCaseControl extends Base {
  kind: 'testCase';
}
/** The request builder: the request's own fields plus the node fields it shows in its tabs. */
export interface RequestControl extends Base {
  kind: 'request';
  /** The generic plan of `request` (settings and `auth` are rendered from it). */
  request: FieldsetControl;
  server?: Control;
  authProfile?: Control;
  script?: ScriptControl;
  retry?: Control;
  /**
   * `request.multipart` and `request.file` (the body from workspace files), taken out of
   * `request.children`: the Body tab draws them (its Multipart and File modes), the generic
   * Settings list never does.
   */
  multipart?: Control;
  file?: Control;
}

export type Control =
  | TextControl
  | ExpressionControl
  | NumberControl
  | BooleanControl
  | SelectControl
  | ScalarControl
  | JsonControl
  | ListControl
  | MapControl
  | RowsControl
  | FieldsetControl
  | VariantControl
  | ScriptControl
  | AssertionsControl
  | ExtractionsControl
  | TestCaseControl
  | RequestControl;

/** A top-level field the form leaves to someone else, and why. */
export interface Skipped {
  field: string;
  reason: string;
}

/** A node type's form. */
export interface FormPlan {
  type: FlowNodeType;
  /** `NODE_FIELDS[type].description`. */
  description: string;
  /** Name, ID, Disabled: the fields every node has. */
  common: Control[];
  /** The type's own fields, in schema order (widgets in their field's place). */
  controls: Control[];
  skipped: Skipped[];
}

/** A schema the planner cannot turn into a control: an unknown keyword or shape. */
export class PlanError extends Error {
  constructor(
    message: string,
    readonly where: string,
  ) {
    super(`${where}: ${message}`);
    this.name = 'PlanError';
  }
}

/**
 * The JSON Schema keywords the planner understands. Any other keyword in a node schema throws
 * {@link PlanError} (the coverage test fails), so validation cannot grow a rule the forms ignore.
 * `pattern`, `minLength`, `maxLength`, `minimum`, `maximum` become input attributes; `required`
 * marks the label; `maxItems`/`maxProperties`/`minProperties`/`propertyNames` are left to the server.
 */
export const KNOWN_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'description',
  'properties',
  'required',
  'additionalProperties',
  'enum',
  'const',
  'anyOf',
  'allOf',
  'if',
  'then',
  'items',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'propertyNames',
  'examples',
]);

/**
 * Fields the console edits before the server's schema lists them (the lead adds them to
 * flow-schemas.ts and the engine): every node's `disabled` (a node the run skips) and the API
 * node's `extract` (variable name → JSONata expression over the response, set after the request).
 * When `NODE_COMMON_PROPERTIES`/`NODE_FIELDS` list them, the server's schema is used instead.
 */
export const KNOWN_EXTRA_FIELDS: {
  common: Readonly<Record<string, Record<string, unknown>>>;
  types: Partial<Record<FlowNodeType, Readonly<Record<string, Record<string, unknown>>>>>;
} = {
  common: {
    disabled: { type: 'boolean', description: 'A disabled node is not run (reported as skipped).' },
  },
  types: {
    api: {
      extract: {
        type: 'object',
        maxProperties: 100,
        propertyNames: { minLength: 1, maxLength: 200 },
        additionalProperties: { type: 'string', minLength: 1, maxLength: 4000 },
        description:
          'Variables set from the response after the request: variable name → JSONata expression over `{response, variables, nodes, …}` (`response.body.token`).',
      },
    },
  },
};

/**
 * String fields holding JSONata expressions (checked as typed), by field name. The coverage test
 * checks this list against the schemas: every string of the expression shape (`minLength` 1,
 * `maxLength` 4000, no pattern) is one, and nothing else.
 */
export const EXPRESSION_FIELDS: ReadonlySet<string> = new Set([
  'condition',
  'while',
  'breakCondition',
  'items',
  'until',
  'match',
  'where',
  'skipIf',
  'expression',
  'target',
]);

/** Maps whose values are JSONata expressions, by `<type>.<field>`. */
const EXPRESSION_MAPS: ReadonlySet<string> = new Set(['context.set', 'ref.inputs', 'api.extract']);

/** String fields that take `{{variable}}` placeholders (docs/flows.md "Templates"), by field name. */
const TEMPLATE_FIELDS: ReadonlySet<string> = new Set(['url', 'target', 'path']);
/** Maps whose values take `{{variable}}` placeholders. */
const TEMPLATE_MAPS: ReadonlySet<string> = new Set(['headers', 'metadata']);

/** Text fields whose choices come from the form's context. */
const OPTION_FIELDS: Readonly<Record<string, OptionSource>> = {
  server: 'servers',
  authProfile: 'authProfiles',
  dataSet: 'dataSets',
};

/** One row's noun for the maps and row lists, by field name. */
const NOUNS: Readonly<Record<string, string>> = {
  headers: 'Header',
  metadata: 'Metadata entry',
  set: 'Variable',
  inputs: 'Input',
  outputs: 'Output',
  extract: 'Extraction',
  protoFiles: 'Proto file',
  send: 'Message',
};

/**
 * Booleans the server takes as true when absent (docs/flows.md "Request settings", the `retry`
 * defaults, OAuth 1.0 `includeVersion`); every other boolean defaults to false.
 */
export const DEFAULT_TRUE: ReadonlySet<string> = new Set([
  'followRedirects',
  'strictSSL',
  'onNetworkError',
  'includeVersion',
]);

/** Operators that take no `expected` (src/domain/types.ts `Assertion`; ASSERTION_SCHEMA's description). */
export const NO_EXPECTED_OPERATORS: ReadonlySet<AssertionOperator> = new Set([
  'exists',
  'notExists',
  'isEmail',
  'isUrl',
  'isUuid',
  'isIso8601',
  'isJson',
]);

/** True when `operator` compares with an `expected` value (so the form shows its input). */
export function takesExpected(operator: string): boolean {
  return !NO_EXPECTED_OPERATORS.has(operator as AssertionOperator);
}

/** A JSON pointer (RFC 6901) of `path`: `['request', 'url']` → `/request/url`; `[]` → ``. */
export function pointerOf(path: Path): string {
  return path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

type Schema = Record<string, unknown>;

function checkKeywords(schema: Schema, where: string): void {
  for (const key of Object.keys(schema))
    if (!KNOWN_KEYWORDS.has(key)) throw new PlanError(`unknown schema keyword "${key}"`, where);
}

const isScalarSchema = (s: Schema) => s.type === 'string' || s.type === 'number' || s.type === 'integer';
const isExpressionShape = (s: Schema) =>
  s.type === 'string' && s.minLength === 1 && s.maxLength === 4000 && s.pattern === undefined;

/** Where a field is: its node type, path relative to the node, and whether its parent requires it. */
export interface Where {
  type: FlowNodeType;
  path: Path;
  required: boolean;
}

function base(at: Where, schema: Schema, covers: string[] = []): Base {
  const hint = typeof schema.description === 'string' ? schema.description : undefined;
  return {
    path: at.path,
    pointer: pointerOf(at.path),
    label: labelOf(at.type, at.path),
    ...(hint ? { hint } : {}),
    required: at.required,
    covers,
  };
}

function childrenOf(type: FlowNodeType, schema: Schema, path: Path, where: string): Control[] {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries(props).map(([name, s]) =>
    planField({ type, path: [...path, name], required: required.has(name) }, s, `${where}.${name}`),
  );
}

/**
 * The control for one field's schema (`at.path` relative to the node). Throws {@link PlanError}
 * for a keyword outside {@link KNOWN_KEYWORDS} or a shape no control edits (`where` names it).
 */
export function planField(at: Where, schema: Schema, where = at.path.join('.')): Control {
  checkKeywords(schema, where);
  const name = String(at.path[at.path.length - 1] ?? '');
  const b = base(at, schema);
  if (schema === SCRIPT_SCHEMA) {
    for (const [k, s] of Object.entries(SCRIPT_SCHEMA.properties)) checkKeywords(s, `${where}.${k}`);
    const libs = planField(
      { type: at.type, path: [...at.path, 'libs'], required: false },
      SCRIPT_SCHEMA.properties.libs,
      `${where}.libs`,
    );
    return { ...b, kind: 'script', libs: libs as ListControl };
  }
  if (schema.type === 'array' && schema.items === ASSERTION_SCHEMA) {
    checkKeywords(ASSERTION_SCHEMA, `${where}[]`);
    for (const [k, s] of Object.entries(ASSERTION_SCHEMA.properties)) checkKeywords(s, `${where}[].${k}`);
    return {
      ...b,
      kind: 'assertions',
      minItems: typeof schema.minItems === 'number' ? schema.minItems : 0,
      response: at.type === 'api' || at.type === 'poll',
    };
  }
  if (Array.isArray(schema.enum)) return { ...b, kind: 'select', options: schema.enum.map(String) };
  if (Array.isArray(schema.anyOf)) {
    const branches = schema.anyOf as Schema[];
    branches.forEach((s, i) => planField(at, s, `${where}.anyOf[${i}]`));
    return branches.every(isScalarSchema) ? { ...b, kind: 'scalar' } : { ...b, kind: 'json', inline: true };
  }
  switch (schema.type) {
    case 'string': {
      if (EXPRESSION_FIELDS.has(name) && isExpressionShape(schema)) return { ...b, kind: 'expression' };
      const inAuth = at.path[0] === 'request' && at.path[1] === 'auth';
      return {
        ...b,
        kind: 'text',
        template: TEMPLATE_FIELDS.has(name) || inAuth,
        multiline: typeof schema.maxLength === 'number' && schema.maxLength > 10_000,
        ...(typeof schema.pattern === 'string' ? { pattern: schema.pattern } : {}),
        ...(typeof schema.minLength === 'number' ? { minLength: schema.minLength } : {}),
        ...(typeof schema.maxLength === 'number' ? { maxLength: schema.maxLength } : {}),
        ...(Array.isArray(schema.examples) ? { examples: schema.examples.map(String) } : {}),
        ...(OPTION_FIELDS[name] && at.path.length === 1 ? { options: OPTION_FIELDS[name] } : {}),
      };
    }
    case 'integer':
    case 'number':
      return {
        ...b,
        kind: 'number',
        integer: schema.type === 'integer',
        ...(typeof schema.minimum === 'number' ? { minimum: schema.minimum } : {}),
        ...(typeof schema.maximum === 'number' ? { maximum: schema.maximum } : {}),
      };
    case 'boolean':
      return { ...b, kind: 'boolean', defaultValue: DEFAULT_TRUE.has(name) };
    case 'object': {
      if (schema.propertyNames) checkKeywords(schema.propertyNames as Schema, `${where}{names}`);
      if (Array.isArray(schema.allOf)) return planVariant(at, schema, b, where);
      const extra = schema.additionalProperties;
      if (extra && typeof extra === 'object' && !schema.properties) {
        const value = planField({ ...at, required: false }, extra as Schema, `${where}{}`);
        const key = `${at.type}.${name}`;
        const kind = EXPRESSION_MAPS.has(key)
          ? 'expression'
          : value.kind === 'text' && value.multiline
            ? 'multiline'
            : value.kind === 'text' || value.kind === 'expression'
              ? 'text'
              : undefined;
        if (!kind) throw new PlanError('a map whose values are not text', where);
        return { ...b, kind: 'map', value: kind, template: TEMPLATE_MAPS.has(name), noun: NOUNS[name] ?? 'Entry' };
      }
      if (schema.properties) return { ...b, kind: 'fieldset', children: childrenOf(at.type, schema, at.path, where) };
      throw new PlanError('an object with neither properties nor additionalProperties', where);
    }
    case 'array': {
      const items = schema.items as Schema | undefined;
      if (!items) throw new PlanError('an array without items', where);
      if (items.type === 'object' && items.properties) {
        checkKeywords(items, `${where}[]`);
        return { ...b, kind: 'rows', noun: NOUNS[name] ?? 'Item', item: childrenOf(at.type, items, [], `${where}[]`) };
      }
      const item = planField({ ...at, required: false }, items, `${where}[]`);
      if (item.kind === 'text' || item.kind === 'scalar' || item.kind === 'number')
        return { ...b, kind: 'list', numbers: item.kind !== 'text' };
      if (item.kind === 'json') return { ...b, kind: 'json', inline: false };
      throw new PlanError(`an array of ${item.kind}`, where);
    }
    case undefined:
      if (Object.keys(schema).every((k) => k === 'description')) return { ...b, kind: 'json', inline: false };
      throw new PlanError('a schema without a type', where);
    default:
      throw new PlanError(`no control for type ${JSON.stringify(schema.type)}`, where);
  }
}

/** `{properties: {type: {enum}}, allOf: [{if: {properties: {type: {const}}}, then: {properties}}]}`. */
function planVariant(at: Where, schema: Schema, b: Base, where: string): VariantControl {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const [discriminator, tag] = Object.entries(props)[0] ?? [];
  if (!discriminator || !tag || !Array.isArray(tag.enum) || Object.keys(props).length !== 1)
    throw new PlanError('an allOf without one enum property to choose by', where);
  checkKeywords(tag, `${where}.${discriminator}`);
  const variants: Record<string, Control[]> = {};
  (schema.allOf as Schema[]).forEach((branch, i) => {
    const w = `${where}.allOf[${i}]`;
    checkKeywords(branch, w);
    const cond = branch.if as Schema | undefined;
    const then = branch.then as Schema | undefined;
    if (!cond || !then) throw new PlanError('an allOf branch without if/then', w);
    checkKeywords(cond, `${w}.if`);
    checkKeywords(then, `${w}.then`);
    const condProp = ((cond.properties ?? {}) as Record<string, Schema>)[discriminator];
    if (!condProp || condProp.const === undefined) throw new PlanError(`an if without ${discriminator}.const`, w);
    checkKeywords(condProp, `${w}.if.${discriminator}`);
    const value = String(condProp.const);
    const fields = { ...((then.properties ?? {}) as Record<string, Schema>) };
    delete fields[discriminator];
    variants[value] = childrenOf(at.type, { ...then, properties: fields }, at.path, `${w}.then`);
  });
  return { ...b, kind: 'variant', discriminator, options: tag.enum.map(String), variants };
}

/** The properties a node of `type` may have, the console's known extras included (see {@link KNOWN_EXTRA_FIELDS}). */
function fieldsOf(type: FlowNodeType): { common: Record<string, Schema>; own: Record<string, Schema> } {
  return {
    common: { ...KNOWN_EXTRA_FIELDS.common, ...(NODE_COMMON_PROPERTIES as unknown as Record<string, Schema>) },
    own: {
      ...(NODE_FIELDS[type].properties as Record<string, Schema>),
      ...(KNOWN_EXTRA_FIELDS.types[type] ?? {}),
    },
  };
}

/** Fields of `request` the Body tab draws as body modes (Multipart, File) besides `body`. */
const REQUEST_BODY_FIELDS = ['multipart', 'file'] as const;

/** The node fields the request builder shows in its tabs, besides `request`. */
const REQUEST_NODE_FIELDS = ['server', 'authProfile', 'script', 'retry'] as const;

/**
 * The form of a `type` node. Throws {@link PlanError} when a schema uses a keyword or shape the
 * planner does not know. Common fields come first in the order Name, ID, Disabled.
 */
export function planNode(type: FlowNodeType): FormPlan {
  const fields = NODE_FIELDS[type];
  if (!fields) throw new PlanError('unknown node type', String(type));
  const { common, own } = fieldsOf(type);
  const required = new Set(fields.required ?? []);
  const order = ['name', 'id', 'disabled'];
  const commonControls = Object.keys(common)
    .sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99))
    .map((name) => {
      const c = planField({ type, path: [name], required: false }, common[name]!, `${type}.${name}`);
      return { ...c, covers: [name] };
    });

  const skipped: Skipped[] = [];
  const planned = new Map<string, Control>();
  for (const [name, schema] of Object.entries(own)) {
    if (schema === CHILD_NODES) {
      skipped.push({ field: name, reason: 'child nodes: the tree edits them' });
      continue;
    }
    if (schema === SUB_FLOW_NODES) {
      skipped.push({ field: name, reason: 'a sub-flow: the tree and the JSON view edit it' });
      continue;
    }
    const at = { type, path: [name], required: required.has(name) };
    let c = planField(at, schema, `${type}.${name}`);
    if (type === 'api' && name === 'extract') c = { ...base(at, schema), kind: 'extractions' };
    if (type === 'ref' && name === 'testCaseId') c = { ...base(at, schema), kind: 'testCase' };
    planned.set(name, { ...c, covers: [name] });
  }

  const request = planned.get('request');
  if (request && request.kind === 'fieldset') {
    const widget: RequestControl = { ...request, kind: 'request', request, covers: ['request'] };
    for (const name of REQUEST_NODE_FIELDS) {
      const c = planned.get(name);
      if (!c) continue;
      if (name === 'script') {
        if (c.kind !== 'script') throw new PlanError('a script that is not SCRIPT_SCHEMA', `${type}.script`);
        widget.script = c;
      } else widget[name] = c;
      widget.covers.push(name);
      planned.delete(name);
    }
    for (const name of REQUEST_BODY_FIELDS) {
      const c = request.children.find((x) => x.path[1] === name);
      if (!c) continue;
      widget[name] = c;
      widget.request = { ...widget.request, children: widget.request.children.filter((x) => x !== c) };
    }
    planned.set('request', widget);
  }
  return { type, description: fields.description, common: commonControls, controls: [...planned.values()], skipped };
}

/** Every control of `controls`, depth first (fieldsets, variants, the request builder's parts; not rows' items). */
export function walkControls(controls: readonly Control[]): Control[] {
  const out: Control[] = [];
  const visit = (c: Control) => {
    out.push(c);
    if (c.kind === 'fieldset') c.children.forEach(visit);
    else if (c.kind === 'variant') Object.values(c.variants).forEach((v) => v.forEach(visit));
    else if (c.kind === 'script') visit(c.libs);
    else if (c.kind === 'request') {
      c.request.children.forEach(visit);
      for (const extra of [c.server, c.authProfile, c.script, c.retry, c.multipart, c.file]) if (extra) visit(extra);
    }
  };
  controls.forEach(visit);
  return out;
}

/** The pointers at which a form shows errors: every control's; rows, maps and tables take all below theirs. */
export function anchorsOf(plan: FormPlan): string[] {
  return [...new Set(walkControls([...plan.common, ...plan.controls]).map((c) => c.pointer))];
}

/** An API error for the node: a JSON pointer relative to the node, and the message. */
export interface FieldProblem {
  pointer: string;
  message: string;
}

/**
 * Which control shows each error: the one whose pointer is the error's or its longest prefix
 * (`/assertions/2/expected` → `/assertions`; `/request/url` → `/request/url`). Errors no control
 * owns (the node itself: `` or `/`, an unknown field) are `unmatched`, listed at the top of the form.
 */
export function assignErrors(
  anchors: readonly string[],
  errors: readonly FieldProblem[],
): { byAnchor: Map<string, FieldProblem[]>; unmatched: FieldProblem[] } {
  const byAnchor = new Map<string, FieldProblem[]>();
  const unmatched: FieldProblem[] = [];
  for (const e of errors) {
    const p = e.pointer.replace(/^#/, '').replace(/\/$/, '');
    let best: string | undefined;
    for (const a of anchors)
      if (a !== '' && (p === a || p.startsWith(`${a}/`)) && (!best || a.length > best.length)) best = a;
    if (best === undefined) unmatched.push(e);
    else byAnchor.set(best, [...(byAnchor.get(best) ?? []), e]);
  }
  return { byAnchor, unmatched };
}
