/**
 * Validation of a test case's flow when it is saved: the shape, a JSON Schema
 * checked with ajv (unknown node types and fields, wrong types; made from the per-node-type schemas
 * of src/validation/flow-schemas.ts, which Assay's OpenAPI document shows too), and what a schema
 * cannot say: node ids used once in the whole tree, JSONata expressions that parse, `nodes.<id>`
 * references and data set names that point at something, regular expressions that compile and
 * cannot backtrack catastrophically, JSON Schemas that compile, script code that parses, library
 * entries that are URLs or predefined libraries.
 *
 * Every problem is reported with the path of the field at fault (e.g. `['flow', 2, 'then', 0,
 * 'condition']`), so the API names it. Nothing is stored unless the whole flow is valid.
 */
import vm from 'node:vm';
import Ajv from 'ajv';
import { checkSchema, parseRegex } from '../domain/assertions';
import { checkExpression, referencedNodeIds } from '../domain/expressions';
import type { Assertion, DataSet, FlowNode, RequestSpec, ScriptConfig } from '../domain/types';
import { assignNodeIds, childLists, forEachNode } from '../flow/tree';
import { ownLibrary } from '../sandbox/libraries';
import { dataSetRows } from './data-sets';
import { serverNodeIssues } from './servers';
import { schemaLoop } from './json-limits';
import { nodeDurationMs } from '../domain/duration';
import { protoProblem } from '../grpc/proto';
import {
  closedNodeSchema,
  DATA_SET_FIELDS,
  DATA_SET_NAME,
  DATA_SET_TYPES,
  FLOW_NODE_TYPES,
  MAX_DATA_SETS,
  NODES_REF,
  SCRIPT_SCHEMA,
} from './flow-schemas';

/**
 * What the schema cannot say of a request's body fields (docs/flows.md "Files"): at most one of
 * `body`, `multipart` and `file` (the later field of the pair is named at fault: `multipart` next
 * to `body`, `file` next to either), and each multipart part exactly one of `value` and `file`,
 * with `filename` and `contentType` only beside `file`. `at`: the request's path.
 */
export function requestBodyIssues(request: RequestSpec, at: Array<string | number>): FlowIssue[] {
  const issues: FlowIssue[] = [];
  if (request.multipart !== undefined && request.body !== undefined)
    issues.push({ path: [...at, 'multipart'], message: 'cannot be used with body: a request has one body' });
  if (request.file !== undefined && request.body !== undefined)
    issues.push({ path: [...at, 'file'], message: 'cannot be used with body: a request has one body' });
  if (request.file !== undefined && request.multipart !== undefined)
    issues.push({ path: [...at, 'file'], message: 'cannot be used with multipart: a request has one body' });
  (request.multipart ?? []).forEach((part, i) => {
    const where = [...at, 'multipart', i];
    if ((part.value === undefined) === (part.file === undefined))
      issues.push({
        path: where,
        message: 'a part needs exactly one of value (a text part) and file (a workspace file)',
      });
    else if (part.value !== undefined)
      for (const field of ['filename', 'contentType'] as const)
        if (part[field] !== undefined)
          issues.push({ path: [...where, field], message: 'is only taken by a file part (one with file)' });
  });
  return issues;
}

/** A problem at a path inside the request body. */
export interface FlowIssue {
  path: Array<string | number>;
  message: string;
}

import { MAX_FLOW_NODES } from './flow-schemas';
/** Largest number of nodes in a flow (src/validation/flow-schemas.ts, where the CLI reads it without this module's weight). */
export { MAX_FLOW_NODES };

// The largest `count` of a Loop node lives with the node schemas.
export { MAX_LOOP_COUNT } from './flow-schemas';

/** JSON Schema of a flow (an array of nodes): one closed schema per node type (src/validation/flow-schemas.ts), chosen by `type`. */
export const flowSchema = {
  $defs: {
    node: {
      type: 'object',
      required: ['type'],
      properties: { type: { enum: [...FLOW_NODE_TYPES] } },
      allOf: FLOW_NODE_TYPES.map((type) => ({
        if: { properties: { type: { const: type } }, required: ['type'] },
        then: closedNodeSchema(type),
      })),
    },
  },
  type: 'array',
  items: { $ref: NODES_REF },
} as const;

/** JSON Schema of a test case's data sets: one closed schema per data set type (src/validation/flow-schemas.ts), chosen by `type`. */
export const dataSetsSchema = {
  type: 'array',
  maxItems: MAX_DATA_SETS,
  items: {
    type: 'object',
    required: ['name', 'type'],
    properties: { name: DATA_SET_NAME, type: { enum: [...DATA_SET_TYPES] } },
    allOf: DATA_SET_TYPES.map((type) => ({
      if: { properties: { type: { const: type } } },
      then: {
        required: [...(DATA_SET_FIELDS[type].required ?? [])],
        additionalProperties: false,
        properties: { name: {}, type: {}, ...DATA_SET_FIELDS[type].properties },
      },
    })),
  },
} as const;

const ajv = new Ajv({ allErrors: true, strict: false });
const validateShape = ajv.compile(flowSchema);
const validateDataSetsShape = ajv.compile(dataSetsSchema);

/** Splits an ajv instancePath (`/2/request/url`) into segments, numbers for array indexes. */
function segments(instancePath: string): Array<string | number> {
  if (!instancePath) return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/** Converts ajv errors into issues under `prefix`, without duplicates. */
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
    if (e.keyword === 'enum')
      message = `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    const key = `${JSON.stringify(path)} ${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      issues.push({ path, message });
    }
  }
  return issues;
}

function checkAssertion(a: Assertion, path: Array<string | number>, issues: FlowIssue[]): void {
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
      if (
        !Array.isArray(a.expected) ||
        a.expected.length !== 2 ||
        a.expected.some((v) => typeof v !== 'number') ||
        (a.expected[0] as number) > (a.expected[1] as number)
      ) {
        issues.push({ path: at, message: 'must be [min, max] with min <= max' });
      }
      break;
    case 'oneOf':
      if (!Array.isArray(a.expected)) issues.push({ path: at, message: 'must be an array of allowed values' });
      break;
    case 'matches':
      // Runs on RE2 (linear time): what RE2 cannot run (backreferences, lookaround) is refused here.
      try {
        parseRegex(a.expected);
      } catch (err) {
        issues.push({ path: at, message: `is not a valid regular expression: ${(err as Error).message}` });
      }
      break;
    case 'matchesSchema': {
      const problem = hasExpected ? (schemaLoop(a.expected) ?? checkSchema(a.expected)) : 'is required';
      if (problem)
        issues.push({
          path: at,
          message: problem === 'is required' ? problem : `is not a valid JSON Schema: ${problem}`,
        });
      break;
    }
    case 'isEmail':
    case 'isUrl':
    case 'isUuid':
    case 'isIso8601':
    case 'isJson':
      if (hasExpected) issues.push({ path: at, message: `is not taken by ${a.operator} (remove it)` });
      break;
    case 'isType':
      if (!['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'].includes(a.expected as string)) {
        issues.push({ path: at, message: 'must be one of string, number, integer, boolean, object, array, null' });
      }
      break;
    default:
      if (!hasExpected) issues.push({ path: at, message: `is required for ${a.operator}` });
  }
}

const validateScriptShape = ajv.compile(SCRIPT_SCHEMA);

/**
 * Validates hooks given outside a flow (a test case's or a folder's `hooks`, docs/flows.md "Hooks")
 * as an API node's `script` is: the shape, code that parses, library entries. Issues under `prefix`.
 */
export function validateHooks(hooks: unknown, prefix: Array<string | number> = ['hooks']): FlowIssue[] {
  if (!validateScriptShape(hooks)) return ajvIssues(validateScriptShape.errors, prefix);
  const issues: FlowIssue[] = [];
  checkScript(hooks as ScriptConfig, prefix, issues);
  return issues;
}

/** Parses (never runs) script code the way the sandbox wraps it, to report syntax errors with their line. */
function checkScript(script: ScriptConfig, path: Array<string | number>, issues: FlowIssue[]): void {
  try {
    new vm.Script(`(async function () {\n${script.code}\n})`, { filename: 'script.js', lineOffset: -1 });
  } catch (err) {
    const line = /script\.js:(\d+)/.exec(String((err as Error).stack))?.[1];
    issues.push({
      path: [...path, 'code'],
      message: `does not parse: ${(err as Error).message}${line ? ` (line ${line})` : ''}`,
    });
  }
  (script.libs ?? []).forEach((entry, i) => {
    let isUrl = false;
    try {
      const u = new URL(entry);
      isUrl = u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      /* not a URL */
    }
    if (!isUrl && !ownLibrary(entry)) {
      issues.push({
        path: [...path, 'libs', i],
        message:
          'must be an http(s) URL of an IIFE/UMD library or a predefined library such as "crypto-js@4.2.0" (GET /v1/libraries)',
      });
    }
  });
}

/**
 * Validates `flow` (found at `prefix` in the request body) against the test case's data sets.
 *
 * @returns the issues; an empty array means the flow can be stored.
 */
export function validateFlow(
  flow: unknown,
  prefix: Array<string | number> = ['flow'],
  dataSetNames: string[] = [],
): FlowIssue[] {
  if (!validateShape(flow)) return ajvIssues(validateShape.errors, prefix);
  const issues: FlowIssue[] = [];
  const ids = new Map<string, string>();
  const references: Array<{ id: string; path: Array<string | number> }> = [];
  let count = 0;

  const expression = (text: string, path: Array<string | number>) => {
    const err = checkExpression(text);
    if (err) issues.push({ path, message: `is not a valid JSONata expression: ${err.message}` });
    else for (const id of referencedNodeIds(text)) references.push({ id, path });
  };

  const visit = (nodes: FlowNode[], path: Array<string | number>) => {
    nodes.forEach((node, i) => {
      const at = [...path, i];
      count += 1;
      if (node.id !== undefined) {
        const first = ids.get(node.id);
        if (first !== undefined)
          issues.push({ path: [...at, 'id'], message: `"${node.id}" is already the id of the node at ${first}` });
        else ids.set(node.id, at.join('.'));
      }
      switch (node.type) {
        case 'api':
          if (/^connect$/i.test(node.request.method))
            issues.push({
              path: [...at, 'request', 'method'],
              message: 'CONNECT opens a tunnel to a proxy; an API node cannot send it',
            });
          (node.assertions ?? []).forEach((a, j) => {
            expression(a.target, [...at, 'assertions', j, 'target']);
            checkAssertion(a, [...at, 'assertions', j], issues);
          });
          if (node.script) checkScript(node.script, [...at, 'script'], issues);
          issues.push(...serverNodeIssues(node, at));
          issues.push(...requestBodyIssues(node.request, [...at, 'request']));
          break;
        case 'if':
          expression(node.condition, [...at, 'condition']);
          break;
        case 'loop':
          if ((node.count === undefined) === (node.while === undefined))
            issues.push({ path: at, message: 'a Loop node needs exactly one of count and while' });
          if (node.while !== undefined) expression(node.while, [...at, 'while']);
          if (node.breakCondition !== undefined) expression(node.breakCondition, [...at, 'breakCondition']);
          break;
        case 'iteration':
          if ((node.items === undefined) === (node.dataSet === undefined))
            issues.push({ path: at, message: 'an Iteration node needs exactly one of items and dataSet' });
          if (node.items !== undefined) expression(node.items, [...at, 'items']);
          if (node.dataSet !== undefined && !dataSetNames.includes(node.dataSet)) {
            issues.push({
              path: [...at, 'dataSet'],
              message: `no data set named "${node.dataSet}" is attached to the test case`,
            });
          }
          if (node.breakCondition !== undefined) expression(node.breakCondition, [...at, 'breakCondition']);
          break;
        case 'script':
          checkScript(node.script, [...at, 'script'], issues);
          break;
        case 'wait':
          if ((node.ms === undefined) === (node.expression === undefined))
            issues.push({ path: at, message: 'a Wait node needs exactly one of ms and expression' });
          if (node.expression !== undefined) expression(node.expression, [...at, 'expression']);
          break;
        case 'context':
          for (const [name, expr] of Object.entries(node.set)) expression(expr, [...at, 'set', name]);
          break;
        case 'assert':
          node.assertions.forEach((a, j) => {
            expression(a.target, [...at, 'assertions', j, 'target']);
            checkAssertion(a, [...at, 'assertions', j], issues);
          });
          if (node.skipIf !== undefined) expression(node.skipIf, [...at, 'skipIf']);
          break;
        case 'callback':
          if (node.match !== undefined) expression(node.match, [...at, 'match']);
          durationIssue(node.timeout, 'seconds', [...at, 'timeout'], issues);
          (node.assertions ?? []).forEach((a, j) => {
            expression(a.target, [...at, 'assertions', j, 'target']);
            checkAssertion(a, [...at, 'assertions', j], issues);
          });
          break;
        case 'poll':
          expression(node.until, [...at, 'until']);
          durationIssue(node.interval, 'ms', [...at, 'interval'], issues);
          durationIssue(node.maxInterval, 'ms', [...at, 'maxInterval'], issues);
          durationIssue(node.timeout, 'seconds', [...at, 'timeout'], issues);
          (node.assertions ?? []).forEach((a, j) => {
            expression(a.target, [...at, 'assertions', j, 'target']);
            checkAssertion(a, [...at, 'assertions', j], issues);
          });
          issues.push(...serverNodeIssues(node, at));
          issues.push(...requestBodyIssues(node.request, [...at, 'request']));
          break;
        case 'websocket':
        case 'sse':
          if (node.until !== undefined) expression(node.until, [...at, 'until']);
          durationIssue(node.timeout, 'seconds', [...at, 'timeout'], issues);
          (node.assertions ?? []).forEach((a, j) => {
            expression(a.target, [...at, 'assertions', j, 'target']);
            checkAssertion(a, [...at, 'assertions', j], issues);
          });
          break;
        case 'grpc': {
          // The source parses (imports from protoFiles or Google's well-known types) and declares the method.
          const problem = protoProblem(node.proto, node.protoFiles, node.service, node.method);
          if (problem) issues.push({ path: [...at, problem.field], message: problem.message });
          (node.assertions ?? []).forEach((a, j) => {
            expression(a.target, [...at, 'assertions', j, 'target']);
            checkAssertion(a, [...at, 'assertions', j], issues);
          });
          break;
        }
        case 'mockVerify':
          if (node.where !== undefined) expression(node.where, [...at, 'where']);
          if (
            typeof node.count === 'object' &&
            node.count.min !== undefined &&
            node.count.max !== undefined &&
            node.count.min > node.count.max
          )
            issues.push({
              path: [...at, 'count'],
              message: `min (${node.count.min}) is above max (${node.count.max})`,
            });
          (node.assertions ?? []).forEach((a, j) => {
            expression(a.target, [...at, 'assertions', j, 'target']);
            checkAssertion(a, [...at, 'assertions', j], issues);
          });
          break;
        case 'ref':
          // The inputs are evaluated in the caller; the sub-flow is a flow of its own (its own ids and `nodes`).
          for (const [name, expr] of Object.entries(node.inputs ?? {})) expression(expr, [...at, 'inputs', name]);
          if (node.mode === 'ref' && node.flow !== undefined)
            issues.push({
              path: [...at, 'flow'],
              message:
                'must be absent for mode "ref": the referenced test case\'s flow is taken when each run starts (use mode "clone" to keep an editable copy)',
            });
          if (node.mode === 'clone' && node.flow !== undefined)
            issues.push(...validateFlow(node.flow, [...at, 'flow'], dataSetNames));
          break;
      }
      for (const { field, nodes } of childLists(node)) visit(nodes, [...at, field]);
    });
  };
  visit(flow as FlowNode[], prefix);
  if (count > MAX_FLOW_NODES)
    issues.push({ path: prefix, message: `has ${count} nodes; at most ${MAX_FLOW_NODES} are allowed` });
  const known = new Set([...ids.keys(), ...autoIds(flow as FlowNode[])]);
  for (const ref of references) {
    if (!known.has(ref.id))
      issues.push({ path: ref.path, message: `refers to nodes.${ref.id}, but no node has the id "${ref.id}"` });
  }
  return issues;
}

/** Lists an issue when a node's duration field (src/domain/types.ts `DurationValue`) is present but not a duration. */
function durationIssue(
  value: unknown,
  numberUnit: 'seconds' | 'ms',
  path: Array<string | number>,
  issues: FlowIssue[],
): void {
  if (value === undefined) return;
  try {
    nodeDurationMs(value, numberUnit);
  } catch (err) {
    issues.push({ path, message: (err as Error).message });
  }
}

/** Validates data sets: the shape, unique names, and that CSV text parses. */
export function validateDataSets(sets: unknown, prefix: Array<string | number> = ['dataSets']): FlowIssue[] {
  if (!validateDataSetsShape(sets)) return ajvIssues(validateDataSetsShape.errors, prefix);
  const issues: FlowIssue[] = [];
  const names = new Set<string>();
  (sets as DataSet[]).forEach((set, i) => {
    if (names.has(set.name))
      issues.push({ path: [...prefix, i, 'name'], message: `"${set.name}" is used by another data set` });
    names.add(set.name);
    try {
      dataSetRows(set);
    } catch (err) {
      issues.push({
        path: [...prefix, i, set.type === 'csv' ? 'csv' : 'data'],
        message: `does not parse: ${(err as Error).message}`,
      });
    }
  });
  return issues;
}

/** Ids {@link assignNodeIds} will give to nodes without one, so references to them are valid. */
function autoIds(flow: FlowNode[]): string[] {
  const ids: string[] = [];
  forEachNode(assignNodeIds(flow), (n) => ids.push(n.id));
  return ids;
}

/**
 * Rows of the data sets of a saved test case by name, for {@link expectedLoopIterations}
 * (src/flow/estimate.ts): undefined for an unknown set or one that does not parse.
 */
export function dataSetRowCounter(dataSets: DataSet[] = []): (name: string) => number | undefined {
  return (name) => {
    const set = dataSets.find((d) => d.name === name);
    if (!set) return undefined;
    try {
      return dataSetRows(set).length;
    } catch {
      return undefined;
    }
  };
}
