/**
 * Assay's own OpenAPI 3.1 document (docs/api.md "The OpenAPI document"), built
 * from the operation registry (api/openapi/operations.ts: the routes' own request schemas),
 * the components (api/openapi/components.ts) and the scope table (api/scopes.ts). Served at
 * `GET /v1/openapi.json` (api/openapi/router.ts).
 */
import type { AssayConfig } from '../../src/config';
import { scopeEntryFor } from '../scopes';
import { PROBLEM_STATUS, RESPONSES, SCHEMAS, type JsonSchema, type ProblemResponseName } from './components';
import { RESPONSE_EXAMPLES } from './examples';
import { FLOW_SCHEMAS } from './flow';
import { apiOperations, PATH_PARAMS, type ApiOperation } from './operations';

/** The version of the document's `info`: the API's major version and this document's revision. */
export const API_DOCUMENT_VERSION = '1.0.0';

/**
 * `/v1/runs/:runId` → `/v1/runs/{runId}`; a rest-of-path parameter too: `/v1/files/*name` →
 * `/v1/files/{name}` (its value URL-encoded or not: a file name may contain `/`).
 */
export function openApiPath(routerPath: string): string {
  return routerPath.replace(/[:*]([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

/** The path parameter names of a router path, in order. */
function pathParams(routerPath: string): string[] {
  return [...routerPath.matchAll(/[:*]([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!);
}

/** The key scope an operation needs (api/scopes.ts), or undefined when it takes no API key. */
export function operationScope(op: Pick<ApiOperation, 'method' | 'path' | 'auth'>): string | undefined {
  if (op.auth !== 'apiKey') return undefined;
  const entry = scopeEntryFor(op.method.toUpperCase(), op.path.replace(/[:*][A-Za-z_][A-Za-z0-9_]*/g, 'x'));
  if (!entry || entry.template !== op.path || entry.scope === 'public')
    throw new Error(`${op.method.toUpperCase()} ${op.path} has no entry in the scope table (api/scopes.ts)`);
  return entry.scope;
}

const problemRef = (name: ProblemResponseName) => ({ $ref: `#/components/responses/${name}` });

function operationObject(op: ApiOperation): Record<string, unknown> {
  const parameters: unknown[] = [
    ...pathParams(op.path).map((name) => ({
      name,
      in: 'path',
      required: true,
      description: PATH_PARAMS[name] ?? name,
      schema: { type: 'string', minLength: 1 },
    })),
    ...(op.query ?? []).map((q) => ({
      name: q.name,
      in: 'query',
      required: false,
      description: q.description,
      schema: q.schema,
    })),
  ];
  for (const h of op.headers ?? []) {
    parameters.push({ name: h.name, in: 'header', required: false, description: h.description, schema: h.schema });
  }
  if (op.idempotent) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'The same key and request within 24 h answer the run the first call started (`Idempotent-Replayed: true`); another request with the key is 422 `idempotency-key-reused`.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  }
  const scope = operationScope(op);
  const responses: Record<string, unknown> = {};
  for (const [status, r] of Object.entries(op.responses)) {
    responses[status] = {
      description: r.description,
      ...(r.headers
        ? {
            headers: Object.fromEntries(
              Object.entries(r.headers).map(([name, description]) => [
                name,
                { description, schema: { type: 'string' } },
              ]),
            ),
          }
        : {}),
      ...(r.schema
        ? {
            content: {
              [r.mediaType ?? 'application/json']: {
                schema: r.schema,
                ...(r.examples?.length
                  ? { examples: Object.fromEntries(r.examples.map((name) => [name, RESPONSE_EXAMPLES[name]])) }
                  : {}),
              },
            },
          }
        : {}),
    };
  }
  const problems = new Set<ProblemResponseName>(op.problems);
  if (op.auth === 'apiKey')
    for (const p of ['Unauthorized', 'Forbidden', 'TooManyRequests', 'ServiceUnavailable'] as const) problems.add(p);
  for (const p of problems) responses[PROBLEM_STATUS[p]] = problemRef(p);
  const scopeNote = scope
    ? `\n\nNeeds an API key with scope \`${scope}\` or more (\`read\` < \`run\` < \`write\`).`
    : op.auth === 'none'
      ? '\n\nNo API key needed.'
      : '';
  return {
    operationId: op.operationId,
    summary: op.summary,
    description: `${op.description ?? ''}${scopeNote}`.trim(),
    tags: [op.tag],
    ...(parameters.length ? { parameters } : {}),
    ...(op.body
      ? {
          requestBody: {
            required: op.body.required,
            ...(op.body.description ? { description: op.body.description } : {}),
            content: {
              [op.body.mediaType ?? 'application/json']: {
                schema: op.body.schema,
                ...(op.body.examples ? { examples: op.body.examples } : {}),
              },
              ...Object.fromEntries(Object.entries(op.body.alsoAs ?? {}).map(([type, schema]) => [type, { schema }])),
            },
          },
        }
      : {}),
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))),
    security:
      op.auth === 'apiKey'
        ? [{ apiKey: [scope] }]
        : op.auth === 'webhook'
          ? [{ webhookToken: [] }, { webhookApiKey: [] }, {}]
          : [],
    ...(scope ? { 'x-assay-scope': scope } : {}),
  };
}

/** The component schemas: the answers' (api/openapi/components.ts) and the flow's (api/openapi/flow.ts), each name once. */
function componentSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = { ...(SCHEMAS as Record<string, JsonSchema>) };
  for (const [name, schema] of Object.entries(FLOW_SCHEMAS)) {
    if (schemas[name]) throw new Error(`component schema ${name} is defined twice`);
    schemas[name] = schema;
  }
  return schemas;
}

/** The OpenAPI 3.1 document of the API configured by `config` (its `servers` is `ASSAY_PUBLIC_URL`). */
export function openApiDocument(config: AssayConfig): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const operations = apiOperations(config);
  for (const op of operations) {
    const item = (paths[openApiPath(op.path)] ??= {});
    if (item[op.method]) throw new Error(`${op.method.toUpperCase()} ${op.path} is registered twice`);
    item[op.method] = operationObject(op);
  }
  const tags = [...new Set(operations.map((op) => op.tag))].map((name) => ({ name }));
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: 'Assay API',
      version: API_DOCUMENT_VERSION,
      summary: 'Self-hosted API testing on Temporal: test cases, runners, environments, runs, deployments and mocks.',
      description:
        'Generated from the JSON Schemas the API validates request bodies with, so it cannot drift from them. Every `/v1` call but this document needs `Authorization: Bearer <API_KEY>`; each operation names the key scope it needs. Errors are RFC 9457 problem details (`application/problem+json`) with a stable `code`. Lists answer `{items, nextCursor}`; pass `nextCursor` as `cursor` for the next page.',
    },
    servers: [{ url: config.api.publicUrl, description: 'This Assay (ASSAY_PUBLIC_URL)' }],
    tags,
    paths,
    components: {
      schemas: componentSchemas(),
      responses: RESPONSES,
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            "An API key (`npm run keys -- create --workspace <name> --scope read|run|write`). The scope each operation needs is listed with it (the security requirement's role, and `x-assay-scope`).",
        },
        webhookToken: {
          type: 'http',
          scheme: 'bearer',
          description: "The deployment's webhook token (shown once when made).",
        },
        webhookApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: "An API key of the deployment's workspace with scope `run` or `write`.",
        },
      },
    },
  };
}
