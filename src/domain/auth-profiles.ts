/**
 * Authentication profiles (docs/auth.md): named credentials of a workspace that API nodes, test
 * cases, folders and runners refer to by name instead of writing `Authorization` headers by hand.
 *
 * Pure types and rules (workflow code imports them): the profile shapes, which fields are secret,
 * the precedence of the levels that may name a profile (node > test case > folder > runner;
 * {@link AUTH_NONE} turns authentication off at that level) and what a run's plan freezes. Applying a
 * profile (templates filled, secrets opened, OAuth 2.0 tokens fetched and cached) happens in the
 * activity: src/auth/.
 */

/** The kinds of profile. */
export const AUTH_PROFILE_TYPES = ['bearer', 'basic', 'apiKey', 'oauth2'] as const;
export type AuthProfileType = (typeof AUTH_PROFILE_TYPES)[number];

/** The OAuth 2.0 grants a profile may use (RFC 6749 §4.4, §4.3, §6). */
export const OAUTH2_GRANTS = ['client_credentials', 'password', 'refresh_token'] as const;
export type OAuth2Grant = (typeof OAUTH2_GRANTS)[number];

/** `Authorization: Bearer <token>` (RFC 6750 §2.1). */
export interface BearerProfileConfig {
  token: string;
}

/** HTTP Basic (RFC 7617): `Authorization: Basic base64(username:password)`. */
export interface BasicProfileConfig {
  username: string;
  password: string;
}

/** A key sent as a header or a query parameter named `name`. */
export interface ApiKeyProfileConfig {
  name: string;
  value: string;
  in: 'header' | 'query';
}

/**
 * OAuth 2.0: a token obtained from `tokenUrl` with `grant`, sent as `Authorization: Bearer`. The
 * client authenticates with HTTP Basic (`clientAuthentication: 'basic'`, the default) or with
 * `client_id`/`client_secret` in the form body (`'body'`), RFC 6749 §2.3.1. `scopes` are sent
 * space-separated (§3.3), `audience` as a body parameter.
 */
export interface OAuth2ProfileConfig {
  grant: OAuth2Grant;
  tokenUrl: string;
  clientId: string;
  clientSecret?: string;
  scopes?: string[];
  audience?: string;
  clientAuthentication?: 'basic' | 'body';
  /** The resource owner's credentials (grant `password`). */
  username?: string;
  password?: string;
  /** The refresh token the grant `refresh_token` starts from. */
  refreshToken?: string;
}

export type AuthProfileConfig = BearerProfileConfig | BasicProfileConfig | ApiKeyProfileConfig | OAuth2ProfileConfig;

/**
 * Fields holding secrets: a literal value is stored sealed with the key ring and answered as
 * `"***"`; a value that is only a `{{variable}}` template is stored and answered as written (the
 * variable may be a secret variable of the environment).
 */
export const AUTH_PROFILE_SECRET_FIELDS: readonly string[] = [
  'token',
  'password',
  'value',
  'clientSecret',
  'refreshToken',
];

/** The profile name that turns authentication off at its level. */
export const AUTH_NONE = 'none';

/** A profile as a run's plan freezes it: its config with literal secrets still sealed. */
export interface FrozenAuthProfile {
  /** The profile's id (the sealed values are bound to it). */
  id: string;
  name: string;
  type: AuthProfileType;
  config: Record<string, unknown>;
}

/** What a test case's run needs to know about profiles (from the plan; absent when the run uses none). */
export interface TestCaseAuth {
  workspaceId: string;
  environment: string;
  /** The profile of the test case's level (test case > folder > runner), or none. */
  profile?: string;
  /** The profiles the plan froze, by name. */
  profiles: Record<string, FrozenAuthProfile>;
}

/** What an API node's activity gets when a profile applies to it (ApiNodeInput `authProfile`). */
export interface ApiNodeAuthProfile {
  workspaceId: string;
  environment: string;
  profile: FrozenAuthProfile;
}

/** The first level that names a profile (node > test case > folder > runner); undefined for none or {@link AUTH_NONE}. */
export function effectiveProfileName(...levels: Array<string | undefined | null>): string | undefined {
  for (const level of levels) {
    if (level === undefined || level === null || level === '') continue;
    return level === AUTH_NONE ? undefined : level;
  }
  return undefined;
}

/**
 * What a test case of `plan` needs about profiles: undefined when the plan froze none (plans from
 * before profiles, and runs that use none: their test cases run exactly as before).
 */
export function testCaseAuth(
  plan: {
    workspaceId: string;
    environment: string;
    authProfile?: string;
    authProfiles?: Record<string, FrozenAuthProfile>;
  },
  testCase: { authProfile?: string; folderAuthProfile?: string },
): TestCaseAuth | undefined {
  if (!plan.authProfiles) return undefined;
  const level = [testCase.authProfile, testCase.folderAuthProfile, plan.authProfile].find(
    (p) => p !== undefined && p !== null && p !== '',
  );
  return {
    workspaceId: plan.workspaceId,
    environment: plan.environment,
    ...(level !== undefined ? { profile: level } : {}),
    profiles: plan.authProfiles,
  };
}

/** The profile an API node uses (its own `authProfile`, else its test case's level), frozen; undefined for none. */
export function apiNodeAuthProfile(
  nodeProfile: string | undefined,
  auth: TestCaseAuth | undefined,
): ApiNodeAuthProfile | undefined {
  if (!auth) return undefined;
  const name = effectiveProfileName(nodeProfile, auth.profile);
  if (name === undefined) return undefined;
  const profile = auth.profiles[name];
  if (!profile) return undefined;
  return { workspaceId: auth.workspaceId, environment: auth.environment, profile };
}

/** What results show of the profile a request used. */
export function profileInResults(p: ApiNodeAuthProfile): { profile: string; type: string } {
  return { profile: p.profile.name, type: p.profile.type };
}
