/**
 * The OpenAPI operations of the audit trail and of resource versions (api/routes/audit.ts,
 * api/routes/versions.ts, docs/teams.md).
 */
import type { AssayConfig } from '../../src/config';
import { pageOf, schemaRef, type JsonSchema } from './components';
import { paging } from './paging-params';
import type { ApiOperation, QueryParam } from './operation-types';

const text = { type: 'string' } as const;
const timestamp = { type: 'string', format: 'date-time' } as const;

/** Who did something (src/store/entities/audit-event.ts `AuditActor`). */
const ACTOR: JsonSchema = {
  type: 'object',
  required: ['type', 'id', 'name'],
  description: 'Who made the change.',
  properties: {
    type: {
      enum: ['user', 'key', 'service-account', 'webhook', 'system'],
      description:
        "`user` (a console session), `key` (a user's or the workspace's API key), `service-account` (a service account's key), `webhook` (a deployment's incoming webhook: `id` is the deployment's), `system`.",
    },
    id: text,
    name: {
      type: 'string',
      description: "What people read: the user's name, the key's name and prefix, the deployment's name.",
    },
    userId: { type: 'string', description: 'For a key: the user it belongs to.' },
  },
};

/** One field change (src/teams/diff.ts). */
const CHANGE: JsonSchema = {
  type: 'object',
  required: ['path'],
  properties: {
    path: { type: 'string', description: 'RFC 6901 JSON Pointer of the field (`""`: the whole document).' },
    before: { description: 'The value before; absent when the field was added. Secrets `"***"`.' },
    after: { description: 'The value after; absent when the field was removed. Secrets `"***"`.' },
  },
};

const AUDIT_EVENT: JsonSchema = {
  type: 'object',
  required: ['id', 'at', 'actor', 'action', 'resourceType', 'changes'],
  properties: {
    id: { type: 'string', description: 'The event id (`aud_…`).' },
    at: timestamp,
    actor: ACTOR,
    address: { type: ['string', 'null'], description: "The client's address." },
    action: { type: 'string', description: '`<resourceType>.<verb>`: `test-case.update`, `run.start`, `key.revoke`…' },
    resourceType: text,
    resourceId: { type: ['string', 'null'] },
    resourceName: { type: ['string', 'null'] },
    request: { type: ['string', 'null'], description: '`METHOD path` of the request that made the change.' },
    requestId: { type: ['string', 'null'] },
    changes: {
      type: 'array',
      items: CHANGE,
      description:
        'The field diff, secrets masked; at most 1,000 entries, then one (`path` `""`) saying how many more. Empty for actions without a body.',
    },
  },
};

const CHANGES_ANSWER = (what: string): JsonSchema => ({
  type: 'object',
  required: ['from', 'to', 'changes'],
  properties: {
    from: { type: 'integer' },
    to: { type: 'integer' },
    changes: {
      type: 'array',
      items: CHANGE,
      description: `What changed from version \`from\` to \`to\` of the ${what}.`,
    },
  },
});

const VERSION_ITEM: JsonSchema = {
  type: 'object',
  required: ['version', 'name', 'savedAt', 'savedBy', 'restoredFrom', 'current'],
  properties: {
    version: { type: 'integer', minimum: 1 },
    name: { type: 'string', description: "The resource's name at this version." },
    savedAt: timestamp,
    savedBy: ACTOR,
    restoredFrom: { type: ['integer', 'null'], description: 'The version this one restored, if it is a restore.' },
    current: { type: 'boolean', description: 'The version the resource is at now.' },
  },
};

const filter = (
  name: string,
  description: string,
  schema: JsonSchema = { type: 'string', minLength: 1 },
): QueryParam => ({
  name,
  description: `${description} Absent: no filter; given empty, twice or malformed: 400 \`invalid-query\` naming it.`,
  schema,
});

const TIME_FILTERS = [
  filter('since', 'Events at or after this ISO 8601 date-time (with a zone, e.g. `2026-01-31T00:00:00Z`).', timestamp),
  filter('until', 'Events before this ISO 8601 date-time (with a zone).', timestamp),
];
const FILTERS = [
  filter('action', 'Only this action (`test-case.update`).'),
  filter('resourceType', 'Only this resource type (`environment`).'),
  filter('resourceId', 'Only this resource (its id; a run id for runs).'),
  filter('actorId', "Only this actor's events (a user id, key id, or deployment id for its webhook)."),
  ...TIME_FILTERS,
];

/** The versioned types: tag, path, parameter, nouns, the resource's component schema. */
const VERSIONED = [
  { tag: 'Test cases', base: '/v1/test-cases/:testCaseId', noun: 'test case', id: 'TestCase', schema: 'TestCase' },
  {
    tag: 'Environments',
    base: '/v1/environments/:environmentName',
    noun: 'environment',
    id: 'Environment',
    schema: 'Environment',
  },
  { tag: 'Runners', base: '/v1/runners/:runnerName', noun: 'runner', id: 'Runner', schema: 'Runner' },
  { tag: 'Designs', base: '/v1/designs/:designId', noun: 'design', id: 'Design', schema: 'Design' },
  {
    tag: 'Auth profiles',
    base: '/v1/auth-profiles/:profileName',
    noun: 'auth profile',
    id: 'AuthProfile',
    schema: 'AuthProfile',
  },
] as const;

function versionOperations(): ApiOperation[] {
  return VERSIONED.flatMap(({ tag, base, noun, id, schema }): ApiOperation[] => [
    {
      method: 'get',
      path: `${base}/versions`,
      operationId: `list${id}Versions`,
      summary: `List the versions of a ${noun}`,
      description: `Every save (create, update, restore) of the ${noun} is kept as a version, newest first (docs/teams.md "Versions"). \`current\` marks the one it is at now.`,
      tag,
      auth: 'apiKey',
      query: paging(),
      responses: { '200': { description: 'A page of versions.', schema: pageOf(VERSION_ITEM) } },
      problems: ['BadRequest', 'NotFound'],
    },
    {
      method: 'get',
      path: `${base}/versions/:version`,
      operationId: `get${id}Version`,
      summary: `Get one version of a ${noun}`,
      description: `\`body\` is the ${noun} as GET answered it then, secrets masked as GET masks them.`,
      tag,
      auth: 'apiKey',
      responses: {
        '200': {
          description: 'The version.',
          schema: {
            type: 'object',
            required: ['version', 'name', 'savedAt', 'savedBy', 'restoredFrom', 'body'],
            properties: {
              version: { type: 'integer', minimum: 1 },
              name: text,
              savedAt: timestamp,
              savedBy: ACTOR,
              restoredFrom: { type: ['integer', 'null'] },
              // A design's version leaves out `mockUrl` (where it is served now, not what was saved).
              body:
                schema === 'Design'
                  ? { type: 'object', description: 'The design at this version: the Design schema without `mockUrl`.' }
                  : { ...schemaRef(schema), description: `The ${noun} at this version.` },
            },
          },
        },
      },
      problems: ['BadRequest', 'NotFound'],
    },
    {
      method: 'get',
      path: `${base}/versions/:version/diff`,
      operationId: `diff${id}Versions`,
      summary: `Compare two versions of a ${noun}`,
      description: 'A field diff (RFC 6901 paths) from version `{version}` to `to`.',
      tag,
      auth: 'apiKey',
      query: [
        {
          name: 'to',
          description:
            'The version to compare with (default: the current one). 400 `invalid-query` when not a version number.',
          schema: { type: 'integer', minimum: 1 },
        },
      ],
      responses: { '200': { description: 'The changes.', schema: CHANGES_ANSWER(noun) } },
      problems: ['BadRequest', 'NotFound'],
    },
    {
      method: 'post',
      path: `${base}/versions/:version/restore`,
      operationId: `restore${id}Version`,
      summary: `Restore a version of a ${noun}`,
      description:
        `Saves the version's body as the ${noun}'s PUT would (validated as any edit; a problem stores nothing), making a new version with \`restoredFrom\`. Secrets keep their current values (a version holds none). ${noun === 'test case' ? 'No `If-Match` needed.' : ''}`.trim(),
      tag,
      auth: 'apiKey',
      responses: { '200': { description: `The ${noun} as restored.`, schema: schemaRef(schema) } },
      problems: ['BadRequest', 'NotFound', 'Conflict', 'Unprocessable'],
    },
  ]);
}

/** Operations of /v1/audit and the `/versions` of versioned resources. */
export function changeOperations(_config: AssayConfig): ApiOperation[] {
  return [
    {
      method: 'get',
      path: '/v1/audit',
      operationId: 'listAuditEvents',
      summary: 'List the audit trail',
      description: 'Changes made in the workspace, newest first (docs/teams.md "Audit trail"). Scope `admin`.',
      tag: 'Audit',
      auth: 'apiKey',
      query: [...FILTERS, ...paging()],
      responses: { '200': { description: 'A page of events.', schema: pageOf(AUDIT_EVENT) } },
      problems: ['BadRequest'],
    },
    {
      method: 'get',
      path: '/v1/audit/export',
      operationId: 'exportAuditEvents',
      summary: 'Export the audit trail as JSON Lines',
      description:
        'Every matching event, oldest first, one JSON object per line (`application/x-ndjson`), streamed; for a SIEM. Scope `admin`.',
      tag: 'Audit',
      auth: 'apiKey',
      query: FILTERS,
      responses: {
        '200': {
          description: 'One event per line.',
          mediaType: 'application/x-ndjson',
          schema: AUDIT_EVENT,
          headers: { 'Content-Disposition': '`attachment; filename="assay-audit-<workspace>.jsonl"`.' },
        },
      },
      problems: ['BadRequest'],
    },
    ...versionOperations(),
  ];
}
