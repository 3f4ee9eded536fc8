/**
 * The OpenAPI operations of people, members and API keys (api/routes/members.ts, api/routes/keys.ts,
 * docs/teams.md), and of the console's sign-in under /auth (api/routes/sign-in.ts), which live
 * outside /v1 and take no API key, as /callbacks and /webhooks do.
 */
import type { AssayConfig } from '../../src/config';
import { ROLES } from '../../src/teams/roles';
import { KEY_SCHEMA, KEY_SCHEMAS } from '../routes/keys';
import { MEMBER_SCHEMA, MEMBER_SCHEMAS } from '../routes/members';
import { pageOf, type JsonSchema } from './components';
import { paging } from './paging-params';
import type { ApiOperation, SuccessResponse } from './operation-types';

const json = (description: string, schema: JsonSchema): SuccessResponse => ({ description, schema });

/** A new key's answer: the Key and its secret. */
const NEW_KEY_SCHEMA: JsonSchema = {
  ...KEY_SCHEMA,
  required: [...KEY_SCHEMA.required, 'key'],
  properties: {
    ...KEY_SCHEMA.properties,
    key: { type: 'string', pattern: '^assay_', description: 'The key itself: shown only in this answer.' },
  },
};

/** GET /auth/session's answer. */
const SESSION_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['user', 'csrfToken', 'expiresAt', 'workspaces'],
  properties: {
    user: {
      type: 'object',
      required: ['id', 'name', 'email'],
      properties: { id: { type: 'string' }, name: { type: 'string' }, email: { type: ['string', 'null'] } },
    },
    csrfToken: {
      type: 'string',
      description: 'Send it in `X-CSRF-Token` with every change made with the session cookie.',
    },
    expiresAt: { type: 'string', format: 'date-time', description: 'When the session ends at the latest.' },
    workspaces: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name', 'role'],
        properties: { id: { type: 'string' }, name: { type: 'string' }, role: { enum: [...ROLES] } },
      },
    },
  },
};

const SESSION_NOTE =
  ' A console session may call it too: no `Authorization`, the `assay_session` cookie, `X-Assay-Workspace` naming the workspace (id or name; default the first by name) and, for a change, `X-CSRF-Token` (docs/teams.md "People and sign-in").';

/** Operations of /v1/members, /v1/keys and /auth/*. */
export function peopleOperations(_config: AssayConfig): ApiOperation[] {
  const members = 'Members';
  const keys = 'API keys';
  const signIn = 'Sign-in';
  return [
    {
      method: 'get',
      path: '/v1/members',
      operationId: 'listMembers',
      summary: 'List the members of the workspace',
      description: `By user id. \`role\` is the one they act with: the higher of \`directRole\` and \`groupRole\`.${SESSION_NOTE}`,
      tag: members,
      auth: 'apiKey',
      query: paging(),
      responses: { '200': json('A page of members.', pageOf(MEMBER_SCHEMA)) },
      problems: ['BadRequest'],
    },
    {
      method: 'post',
      path: '/v1/members',
      operationId: 'addMember',
      summary: 'Add a person by e-mail',
      description:
        'Someone who never signed in is bound to this member at their first sign-in with that e-mail, verified by the identity provider. Only an owner gives the `owner` role (403). 409 `member-exists` when they already have a role here.',
      tag: members,
      auth: 'apiKey',
      body: {
        schema: MEMBER_SCHEMAS.create,
        required: true,
        examples: { editor: { summary: 'An editor', value: { email: 'ed@example.com', name: 'Ed', role: 'editor' } } },
      },
      responses: {
        '201': { ...json('The member.', MEMBER_SCHEMA), headers: { Location: "The member's address." } },
      },
      problems: ['BadRequest', 'Conflict', 'UnsupportedMediaType'],
    },
    {
      method: 'get',
      path: '/v1/members/:userId',
      operationId: 'getMember',
      summary: 'Read a member',
      tag: members,
      auth: 'apiKey',
      responses: { '200': json('The member.', MEMBER_SCHEMA) },
      problems: ['NotFound'],
    },
    {
      method: 'patch',
      path: '/v1/members/:userId',
      operationId: 'updateMember',
      summary: "Change a member's direct role",
      description:
        "`null` removes the direct role (a role from their groups stays; with none left they are removed and their keys here revoked). Only an owner gives the `owner` role or changes an owner's (403); 409 `last-owner` when the workspace would be left without an owner.",
      tag: members,
      auth: 'apiKey',
      body: {
        schema: MEMBER_SCHEMAS.patch,
        required: true,
        examples: { viewer: { summary: 'Make them a viewer', value: { role: 'viewer' } } },
      },
      responses: { '200': json('The member as changed.', MEMBER_SCHEMA) },
      problems: ['BadRequest', 'NotFound', 'Conflict', 'UnsupportedMediaType'],
    },
    {
      method: 'delete',
      path: '/v1/members/:userId',
      operationId: 'removeMember',
      summary: 'Remove a member',
      description:
        'Revokes their API keys in this workspace; their console session loses the workspace at once. Only an owner removes an owner (403); 409 `last-owner` for the last one. (A role their identity provider groups give comes back at their next sign-in: change the mapping too.)',
      tag: members,
      auth: 'apiKey',
      responses: { '204': { description: 'Removed.' } },
      problems: ['NotFound', 'Conflict'],
    },
    {
      method: 'get',
      path: '/v1/keys',
      operationId: 'listKeys',
      summary: 'List API keys',
      description: `Newest first, revoked ones included. An admin sees every key of the workspace; anyone else only their own.${SESSION_NOTE}`,
      tag: keys,
      auth: 'apiKey',
      query: paging(),
      responses: { '200': json('A page of keys (never their secrets).', pageOf(KEY_SCHEMA)) },
      problems: ['BadRequest'],
    },
    {
      method: 'post',
      path: '/v1/keys',
      operationId: 'createKey',
      summary: 'Make an API key',
      description:
        "A personal key (no `serviceAccount`) belongs to the calling person and acts with at most their current role; it needs a person as caller (a console session or a person's key; otherwise 400 naming `serviceAccount`). `scope` is at most the caller's own and at most `admin` (403 `scope-exceeds-role`). A service account's key needs `admin`. The secret is in this answer only.",
      tag: keys,
      auth: 'apiKey',
      body: {
        schema: KEY_SCHEMAS.create,
        required: true,
        examples: {
          ci: { summary: "A CI service account's key", value: { name: 'ci', scope: 'run', serviceAccount: 'ci' } },
        },
      },
      responses: {
        '201': {
          ...json('The key, with its secret (shown once).', NEW_KEY_SCHEMA),
          headers: { Location: "The key's address." },
        },
      },
      problems: ['BadRequest', 'UnsupportedMediaType'],
    },
    {
      method: 'get',
      path: '/v1/keys/:keyId',
      operationId: 'getKey',
      summary: 'Read an API key',
      description: "404 for a key the caller may not see (another person's, unless admin).",
      tag: keys,
      auth: 'apiKey',
      responses: { '200': json('The key (never its secret).', KEY_SCHEMA) },
      problems: ['NotFound'],
    },
    {
      method: 'delete',
      path: '/v1/keys/:keyId',
      operationId: 'revokeKey',
      summary: 'Revoke an API key',
      description: "One's own key, or any key of the workspace for an admin; 404 otherwise. Revoking again is 204.",
      tag: keys,
      auth: 'apiKey',
      responses: { '204': { description: 'Revoked: refused from now on.' } },
      problems: ['NotFound'],
    },
    {
      method: 'get',
      path: '/auth/config',
      operationId: 'getSignInConfig',
      summary: 'Whether the console can sign in through OpenID Connect',
      tag: signIn,
      auth: 'none',
      responses: {
        '200': json('Sign-in settings the console needs.', {
          type: 'object',
          required: ['oidc'],
          properties: {
            oidc: {
              type: 'object',
              required: ['enabled'],
              properties: { enabled: { type: 'boolean' }, displayName: { type: 'string' } },
            },
          },
        }),
      },
      problems: [],
    },
    {
      method: 'get',
      path: '/auth/login',
      operationId: 'startSignIn',
      summary: 'Start signing in (browser navigation)',
      description:
        'Redirects to the identity provider (authorization code with PKCE S256, state and nonce); the sign-in under way is kept 10 minutes in an HttpOnly cookie for /auth. 404 when sign-in is not configured; 400 `invalid-query` when `return` is not a path of this site.',
      tag: signIn,
      auth: 'none',
      query: [
        {
          name: 'return',
          description: 'Where to go after signing in: a path of this site starting with a single `/` (default `/`).',
          schema: { type: 'string', pattern: '^/(?![/\\\\])' },
        },
        {
          name: 'login_hint',
          description: 'Passed on to the provider (OpenID Connect Core 1.0 §3.1.2.1).',
          schema: { type: 'string', maxLength: 255 },
        },
      ],
      responses: {
        '302': { description: "To the provider's authorization endpoint.", headers: { Location: 'The provider.' } },
      },
      problems: ['BadRequest', 'NotFound'],
    },
    {
      method: 'get',
      path: '/auth/callback',
      operationId: 'finishSignIn',
      summary: 'Where the identity provider sends the browser back',
      description:
        'Register `<ASSAY_PUBLIC_URL>/auth/callback` (or ASSAY_OIDC_REDIRECT_URL) with the provider. Exchanges the code, checks the ID token, makes the session (`assay_session` cookie: HttpOnly, SameSite=Lax, Path=/, Secure behind https) and redirects to the return path; on failure to `/?signInError=sign-in-failed`.',
      tag: signIn,
      auth: 'none',
      query: [
        { name: 'code', description: 'The authorization code.', schema: { type: 'string' } },
        { name: 'state', description: 'The state the sign-in started with.', schema: { type: 'string' } },
      ],
      responses: {
        '302': {
          description: 'To the return path (signed in) or to `/?signInError=<code>`.',
          headers: { Location: 'Where the console continues.', 'Set-Cookie': 'The session cookie (on success).' },
        },
      },
      problems: ['NotFound'],
    },
    {
      method: 'get',
      path: '/auth/session',
      operationId: 'getSession',
      summary: 'The signed-in person, their CSRF token and workspaces',
      description: 'Needs the `assay_session` cookie; 401 when there is no live session.',
      tag: signIn,
      auth: 'none',
      responses: { '200': json('The session.', SESSION_SCHEMA) },
      problems: ['Unauthorized', 'TooManyRequests'],
    },
    {
      method: 'post',
      path: '/auth/logout',
      operationId: 'signOut',
      summary: 'Sign out',
      description:
        "Ends the session and clears the cookie. Needs the session's `X-CSRF-Token` (403 `csrf-token-invalid`).",
      tag: signIn,
      auth: 'none',
      headers: [{ name: 'X-CSRF-Token', description: "The session's CSRF token.", schema: { type: 'string' } }],
      responses: { '204': { description: 'Signed out.' } },
      problems: ['Forbidden'],
    },
  ];
}
