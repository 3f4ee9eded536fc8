/**
 * Validation of a test case's flow when it is saved: the shape (a JSON Schema checked with ajv) and
 * what a schema cannot say (node ids used once, expressions that parse, regular expressions that
 * compile and cannot backtrack catastrophically, JSON Schemas that compile).
 *
 * Every problem is reported with the path of the field at fault, e.g. `['flow', 2, 'assertions', 0,
 * 'target']`, so the API can name it. Nothing is stored unless the whole flow is valid.
 */
import Ajv from 'ajv';
import safeRegex from 'safe-regex2';
import { checkSchema, parseRegex } from './assertions';
import { checkExpression } from './expressions';
import { ASSERTION_OPERATORS, HTTP_METHODS, type Assertion, type FlowNode } from './types';

/** A flow problem at a path inside the request body. */
export interface FlowIssue {
  path: Array<string | number>;
  message: string;
}

/** Largest number of nodes a flow may hold. */
export const MAX_FLOW_NODES = 500;

const NODE_ID = '^[A-Za-z_][A-Za-z0-9_-]{0,63}$';

const assertionSchema = {
  type: 'object',
  required: ['target', 'operator'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: 200 },
    target: { type: 'string', minLength: 1, maxLength: 2000 },
    operator: { enum: [...ASSERTION_OPERATORS] },
    expected: {},
  },
} as const;

/** JSON Schema of a flow (an array of nodes). Exported for docs/api.md and the OpenAPI description. */
export const flowSchema = {
  type: 'array',
  maxItems: MAX_FLOW_NODES,
  items: {
    type: 'object',
    required: ['type'],
    properties: { type: { enum: ['api'] } },
    allOf: [
      {
        if: { properties: { type: { const: 'api' } } },
        then: {
          required: ['type', 'request'],
          additionalProperties: false,
          properties: {
            type: { const: 'api' },
            id: { type: 'string', pattern: NODE_ID },
            name: { type: 'string', maxLength: 200 },
            request: {
              type: 'object',
              required: ['method', 'url'],
              additionalProperties: false,
              properties: {
                method: { enum: [...HTTP_METHODS] },
                url: { type: 'string', minLength: 1, maxLength: 8192 },
                headers: { type: 'object', additionalProperties: { type: 'string', maxLength: 8192 }, maxProperties: 100 },
                body: {},
                timeoutMs: { type: 'integer', minimum: 1, maximum: 600_000 },
                followRedirects: { type: 'boolean' },
              },
            },
            assertions: { type: 'array', maxItems: 200, items: assertionSchema },
          },
        },
      },
    ],
  },
} as const;

const ajv = new Ajv({ allErrors: true, strict: false });
const validateShape = ajv.compile(flowSchema);

/** Splits an ajv instancePath (`/2/request/url`) into segments, numbers for array indexes. */
function segments(instancePath: string): Array<string | number> {
  if (!instancePath) return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/** Converts ajv errors into issues under `prefix`, most specific first and without duplicates. */
export function ajvIssues(errors: Ajv['errors'], prefix: Array<string | number> = []): FlowIssue[] {
  const issues: FlowIssue[] = [];
  const seen = new Set<string>();
  for (const e of errors ?? []) {
    if (e.keyword === 'if' || e.keyword === 'allOf') continue;
    const path = [...prefix, ...segments(e.instancePath)];
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      path.push((e.params as { missingProperty: string }).missingProperty);
      message = 'is required';
    }
    if (e.keyword === 'additionalProperties') {
      path.push((e.params as { additionalProperty: string }).additionalProperty);
      message = 'is not a known field';
    }
    if (e.keyword === 'enum') message = `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    const key = `${JSON.stringify(path)} ${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      issues.push({ path, message });
    }
  }
  return issues;
}

function checkAssertion(a: Assertion, path: Array<string | number>): FlowIssue[] {
  const issues: FlowIssue[] = [];
  const parseError = checkExpression(a.target);
  if (parseError) issues.push({ path: [...path, 'target'], message: `is not a valid JSONata expression: ${parseError.message}` });
  const at = [...path, 'expected'];
  const hasExpected = Object.prototype.hasOwnProperty.call(a, 'expected');
  switch (a.operator) {
    case 'exists':
    case 'notExists':
      break;
    case 'greaterThan':
    case 'greaterThanOrEqual':
    case 'lessThan':
    case 'lessThanOrEqual':
      if (typeof a.expected !== 'number') issues.push({ path: at, message: `must be a number for ${a.operator}` });
      break;
    case 'inRange':
      if (!Array.isArray(a.expected) || a.expected.length !== 2 || a.expected.some((v) => typeof v !== 'number') || (a.expected[0] as number) > (a.expected[1] as number)) {
        issues.push({ path: at, message: 'must be [min, max] with min <= max' });
      }
      break;
    case 'oneOf':
      if (!Array.isArray(a.expected)) issues.push({ path: at, message: 'must be an array of allowed values' });
      break;
    case 'matches':
      try {
        const re = parseRegex(a.expected);
        if (!safeRegex(re)) issues.push({ path: at, message: 'this regular expression can backtrack catastrophically; simplify nested quantifiers' });
      } catch (err) {
        issues.push({ path: at, message: `is not a valid regular expression: ${(err as Error).message}` });
      }
      break;
    case 'matchesSchema': {
      const problem = hasExpected ? checkSchema(a.expected) : 'is required';
      if (problem) issues.push({ path: at, message: problem === 'is required' ? problem : `is not a valid JSON Schema: ${problem}` });
      break;
    }
    case 'isType':
      if (!['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'].includes(a.expected as string)) {
        issues.push({ path: at, message: 'must be one of string, number, integer, boolean, object, array, null' });
      }
      break;
    default:
      if (!hasExpected) issues.push({ path: at, message: `is required for ${a.operator}` });
  }
  return issues;
}

/**
 * Validates `flow` (found at `prefix` in the request body).
 *
 * @returns the issues; an empty array means the flow can be stored.
 */
export function validateFlow(flow: unknown, prefix: Array<string | number> = ['flow']): FlowIssue[] {
  if (!validateShape(flow)) return ajvIssues(validateShape.errors, prefix);
  const nodes = flow as FlowNode[];
  const issues: FlowIssue[] = [];
  const ids = new Map<string, number>();
  nodes.forEach((node, i) => {
    if (node.id !== undefined) {
      const first = ids.get(node.id);
      if (first !== undefined) issues.push({ path: [...prefix, i, 'id'], message: `"${node.id}" is already the id of node ${first}` });
      else ids.set(node.id, i);
    }
    (node.assertions ?? []).forEach((a, j) => issues.push(...checkAssertion(a, [...prefix, i, 'assertions', j])));
  });
  return issues;
}

/** Gives every node without an id one (`n1`, `n2`, ... by position, skipping ids in use). */
export function assignNodeIds(flow: FlowNode[]): FlowNode[] {
  const used = new Set(flow.map((n) => n.id).filter((id): id is string => typeof id === 'string'));
  return flow.map((node, i) => {
    if (node.id) return node;
    let n = i + 1;
    while (used.has(`n${n}`)) n += 1;
    used.add(`n${n}`);
    const { id: _missing, ...rest } = node;
    return { id: `n${n}`, ...rest } as FlowNode;
  });
}
