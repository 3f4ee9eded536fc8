/**
 * A test case's flow and data sets in Assay's OpenAPI document, made from the schemas
 * flow validation compiles (src/validation/flow-schemas.ts), never written a second time:
 *
 * - one component per node type, `<Type>Node` (`ApiNode`, `IfNode`, `LoopNode`, …): the type's
 *   closed schema (`type` its constant, `id`, `name`, its own fields), validation's `then` branch
 *   for that type with its child lists pointing at `FlowNode`;
 * - `FlowNode`: the union of them, a `oneOf` with a `discriminator` on `type` whose `mapping` names
 *   each component. Fields holding child nodes (IF `then`/`else`, Loop and Iteration `body`, Parallel
 *   `children`) are arrays of `FlowNode`, so the union is recursive as the tree is;
 * - `DataSet`: `JsonDataSet` or `CsvDataSet`, discriminated on `type` the same way;
 * - `NodeScript` and `Assertion`: the parts two node types share, named once.
 *
 * The test case bodies (api/routes/test-cases.ts `TEST_CASE_SCHEMAS`) check `flow` and `dataSets`
 * only as arrays, since validateFlow/validateDataSets check them after with paths inside them;
 * {@link testCaseBodySchema} documents a body with those two arrays' items made explicit.
 */
import type { FlowNodeType } from '../../src/domain/types';
import {
  ASSERTION_SCHEMA,
  AUTH_FIELDS,
  AUTH_TYPES,
  CHILD_NODES,
  closedNodeSchema,
  DATA_SET_FIELDS,
  DATA_SET_NAME,
  DATA_SET_TYPES,
  FLOW_NODE_TYPES,
  MAX_DATA_SETS,
  NODE_FIELDS,
  REQUEST_AUTH_SCHEMA,
  SCRIPT_SCHEMA,
  SUB_FLOW_NODES,
  type JsonSchema,
} from '../../src/validation/flow-schemas';
import { MAX_FLOW_NODES } from '../../src/validation/flow';

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** The component name of a node type: `api` → `ApiNode`. */
function nodeComponentName(type: FlowNodeType): string {
  return `${type.charAt(0).toUpperCase()}${type.slice(1)}Node`;
}

/** The component name of a data set type: `json` → `JsonDataSet`. */
function dataSetComponentName(type: string): string {
  return `${type.charAt(0).toUpperCase()}${type.slice(1)}DataSet`;
}

/** A list of nodes in the document: each item is one of the node types. */
export const FLOW_NODES: JsonSchema = { type: 'array', items: ref('FlowNode') };

/** Shared parts of the validation schemas, by the component name the document gives them. */
const NAMED_PARTS = new Map<unknown, string>([
  [SCRIPT_SCHEMA, 'NodeScript'],
  [ASSERTION_SCHEMA, 'Assertion'],
  [REQUEST_AUTH_SCHEMA, 'RequestAuth'],
]);

/**
 * A copy of a validation schema for the document: the child list object becomes a list of
 * `FlowNode`, shared parts become `$ref`s to their components. Throws on a `$ref` left pointing
 * into validation's own `$defs` (a child list not made from {@link CHILD_NODES}).
 */
function forDocument(schema: unknown, at: string): unknown {
  if (schema === CHILD_NODES || schema === SUB_FLOW_NODES) return FLOW_NODES;
  const named = NAMED_PARTS.get(schema);
  if (named) return ref(named);
  if (Array.isArray(schema)) return schema.map((s, i) => forDocument(s, `${at}/${i}`));
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref' && typeof value === 'string' && !value.startsWith('#/components/'))
      throw new Error(`${at}: $ref ${value} does not point into the document`);
    copy[key] = forDocument(value, `${at}/${key}`);
  }
  return copy;
}

/** The discriminator property of one member: validation's `{const}`, typed as a string for client generators. */
const tag = (value: string): JsonSchema => ({ type: 'string', const: value });

/** A discriminated union of components: `oneOf` with `discriminator.mapping` from `type` to each. */
function union(description: string, members: Array<[tag: string, component: string]>): JsonSchema {
  return {
    description,
    oneOf: members.map(([, component]) => ref(component)),
    discriminator: {
      propertyName: 'type',
      mapping: Object.fromEntries(members.map(([tag, component]) => [tag, `#/components/schemas/${component}`])),
    },
  };
}

function nodeComponents(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {
    FlowNode: union(
      'A node of a flow (docs/flows.md "Nodes"), chosen by `type`. Nodes holding others (IF `then`/`else`, Loop and Iteration `body`, Parallel `children`, a Ref node\'s sub-flow `flow`) hold lists of this same union. Beyond this schema, saving checks that ids are unique in the whole tree, that JSONata expressions parse and `nodes.<id>` references name a node, regular expressions and JSON Schemas in assertions, script syntax and library entries, and the exactly-one-of rules each type states (400 `validation-failed` with the field\'s path).',
      FLOW_NODE_TYPES.map((type) => [type, nodeComponentName(type)]),
    ),
  };
  for (const type of FLOW_NODE_TYPES) {
    const closed = forDocument(closedNodeSchema(type), nodeComponentName(type)) as {
      properties: Record<string, unknown>;
    };
    schemas[nodeComponentName(type)] = {
      type: 'object',
      description: NODE_FIELDS[type].description,
      ...closed,
      properties: { ...closed.properties, type: tag(type) },
    };
  }
  for (const [part, name] of NAMED_PARTS)
    if (part !== REQUEST_AUTH_SCHEMA) schemas[name] = forDocument({ ...(part as JsonSchema) }, name) as JsonSchema;
  return { ...schemas, ...authComponents() };
}

/** The component name of an auth scheme: `oauth1` → `Oauth1Auth`. */
function authComponentName(type: string): string {
  return `${type.charAt(0).toUpperCase()}${type.slice(1)}Auth`;
}

/** `RequestAuth`, an API node's `request.auth`: one component per scheme, discriminated on `type`. */
function authComponents(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {
    RequestAuth: union(
      REQUEST_AUTH_SCHEMA.description,
      AUTH_TYPES.map((type) => [type, authComponentName(type)]),
    ),
  };
  for (const type of AUTH_TYPES) {
    const fields = AUTH_FIELDS[type];
    schemas[authComponentName(type)] = {
      type: 'object',
      description: fields.description,
      required: ['type', ...(fields.required ?? [])],
      additionalProperties: false,
      properties: { type: tag(type), ...(forDocument(fields.properties, authComponentName(type)) as JsonSchema) },
    };
  }
  return schemas;
}

function dataSetComponents(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {
    DataSet: union(
      'A data set of a test case, for Iteration nodes (docs/flows.md "Data sets"), chosen by `type`. Names are unique within the test case.',
      DATA_SET_TYPES.map((type) => [type, dataSetComponentName(type)]),
    ),
  };
  for (const type of DATA_SET_TYPES) {
    const fields = DATA_SET_FIELDS[type];
    schemas[dataSetComponentName(type)] = {
      type: 'object',
      description: fields.description,
      required: ['name', 'type', ...(fields.required ?? [])],
      additionalProperties: false,
      properties: {
        name: DATA_SET_NAME,
        type: tag(type),
        ...(forDocument(fields.properties, dataSetComponentName(type)) as JsonSchema),
      },
    };
  }
  return schemas;
}

/** The component schemas of flows and data sets, by name (api/openapi/document.ts adds them to the others). */
export const FLOW_SCHEMAS: Record<string, JsonSchema> = { ...nodeComponents(), ...dataSetComponents() };

/** A test case's `flow` in the document. */
export const FLOW_SCHEMA: JsonSchema = {
  ...FLOW_NODES,
  description: `The nodes, run in order (docs/flows.md). At most ${MAX_FLOW_NODES} nodes counted through every branch and body; a node without an \`id\` is given one (\`n1\`, \`n2\`, …).`,
};

/** A test case's `dataSets` in the document. */
export const DATA_SETS_SCHEMA: JsonSchema = {
  type: 'array',
  maxItems: MAX_DATA_SETS,
  items: ref('DataSet'),
  description: 'Data sets Iteration nodes go through (docs/flows.md "Data sets").',
};

/**
 * A test case request body schema as documented: the route's own schema (`schema`, what its
 * validator checks) with `flow` and `dataSets` made {@link FLOW_SCHEMA} and {@link DATA_SETS_SCHEMA},
 * which validateFlow/validateDataSets enforce after it.
 */
export function testCaseBodySchema(schema: { properties: Record<string, unknown> }): JsonSchema {
  return { ...schema, properties: { ...schema.properties, flow: FLOW_SCHEMA, dataSets: DATA_SETS_SCHEMA } };
}
