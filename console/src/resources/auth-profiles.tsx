/**
 * Auth profile pages (docs/auth.md): the list, a form to create one (`POST /v1/auth-profiles`), and
 * one profile to edit (`PUT /v1/auth-profiles/{name}`), delete, and try ("Fetch a token now",
 * `POST /v1/auth-profiles/{name}/token` with an environment).
 *
 * The form shows the fields of the chosen type: bearer (token), basic (username, password), API key
 * (name, value, header or query) and OAuth 2.0 (grant; token URL, client id and secret, scopes,
 * audience, client authentication; the resource owner's username and password for the `password`
 * grant, the refresh token for `refresh_token`). Every value may hold `{{variable}}` templates,
 * filled from the run's environment. Secret fields (token, password, value, client secret, refresh
 * token) are typed into password inputs with a "Show" toggle, as the environment editor's secret
 * variables; the API answers a stored literal secret as `"***"`, shown masked and sent back as
 * `"***"` to keep it (typing a value replaces it).
 *
 * Trying a profile shows what the token endpoint answered — token type, expiry, scope and a preview
 * of at most four characters, never the token — or the endpoint's error (RFC 6749 §5.2) as the API
 * relays it.
 */
import { useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api, type Problem, problemOf } from '../api';
import { dateTime, relative } from '../format';
import { useAction, useLoad } from '../hooks';
import { can } from '../session';
import type { AuthProfileType, OAuth2Grant } from '../../../src/domain/auth-profiles';
import type { Environment } from '../types';
import { ConfirmButton, Field, PageHeader, ProblemBox, fieldError } from '../ui/kit';
import { VersionsPanel } from '../versions/VersionsPanel';
import { listAll, Loading, seg } from './common';
import { API_MASK } from './environments';
import { ResourceList } from './list';

/**
 * The types of auth profile and the OAuth 2.0 grants, in the order the form offers them: the server's
 * lists (src/domain/auth-profiles.ts; the console takes only types from src/, and the labels below,
 * keyed by those types, must name every one).
 */
const AUTH_PROFILE_TYPES: readonly AuthProfileType[] = ['bearer', 'basic', 'apiKey', 'oauth2'];
const OAUTH2_GRANTS: readonly OAuth2Grant[] = ['client_credentials', 'password', 'refresh_token'];

/** An auth profile as the API answers it (docs/auth.md); secret literals come back as `"***"`. */
export interface AuthProfile {
  name: string;
  type: AuthProfileType;
  description?: string | null;
  config: Record<string, unknown>;
  createdAt?: string;
  updatedAt?: string;
}

/** What "Fetch a token now" answers: never the token, only its first characters. */
export interface TokenPreview {
  tokenType: string;
  /** ISO date-time, or null when the endpoint gave no `expires_in`. */
  expiresAt: string | null;
  scope?: string | null;
  obtainedAt: string;
  preview: string;
}

const TYPE_LABELS: Record<AuthProfileType, string> = {
  bearer: 'Bearer token',
  basic: 'Basic',
  apiKey: 'API key',
  oauth2: 'OAuth 2.0',
};

const GRANT_LABELS: Record<OAuth2Grant, string> = {
  client_credentials: 'Client credentials',
  password: 'Password (resource owner)',
  refresh_token: 'Refresh token',
};

/** One input of the form: the config key, its label, and whether it holds a secret. */
interface FieldSpec {
  key: string;
  label: string;
  secret?: boolean;
  required?: boolean;
  hint?: string;
}

const TEMPLATE_HINT = '{{variable}} allowed';

/** The text inputs of a type (and, for OAuth 2.0, of a grant), in the form's order. */
export function fieldsOf(type: AuthProfileType, grant: OAuth2Grant): FieldSpec[] {
  switch (type) {
    case 'bearer':
      return [{ key: 'token', label: 'Token', secret: true, required: true }];
    case 'basic':
      return [
        { key: 'username', label: 'Username', required: true },
        { key: 'password', label: 'Password', secret: true, required: true },
      ];
    case 'apiKey':
      return [
        { key: 'name', label: 'Key name', required: true, hint: 'the header or query parameter, e.g. X-Api-Key' },
        { key: 'value', label: 'Key value', secret: true, required: true },
      ];
    case 'oauth2':
      return [
        { key: 'tokenUrl', label: 'Token URL', required: true, hint: `the token endpoint; ${TEMPLATE_HINT}` },
        { key: 'clientId', label: 'Client id', required: true },
        { key: 'clientSecret', label: 'Client secret', secret: true },
        { key: 'scopes', label: 'Scopes', hint: 'space-separated, e.g. read write' },
        { key: 'audience', label: 'Audience' },
        ...(grant === 'password'
          ? [
              { key: 'username', label: 'Username', required: true },
              { key: 'password', label: 'Password', secret: true, required: true },
            ]
          : []),
        ...(grant === 'refresh_token'
          ? [{ key: 'refreshToken', label: 'Refresh token', secret: true, required: true }]
          : []),
      ];
  }
}

/** The form's state: the type's choices and every text input by config key. */
interface FormState {
  name: string;
  description: string;
  type: AuthProfileType;
  grant: OAuth2Grant;
  in: 'header' | 'query';
  clientAuthentication: 'basic' | 'body';
  values: Record<string, string>;
}

function stateOf(profile: AuthProfile | undefined): FormState {
  const c = profile?.config ?? {};
  const values: Record<string, string> = {};
  for (const [k, v] of Object.entries(c)) {
    if (k === 'scopes') values.scopes = Array.isArray(v) ? v.join(' ') : String(v ?? '');
    else if (typeof v === 'string') values[k] = v;
  }
  return {
    name: profile?.name ?? '',
    description: profile?.description ?? '',
    type: profile?.type ?? 'bearer',
    grant: (c.grant as OAuth2Grant) ?? 'client_credentials',
    in: c.in === 'query' ? 'query' : 'header',
    clientAuthentication: c.clientAuthentication === 'body' ? 'body' : 'basic',
    values,
  };
}

/**
 * The profile's `config` as the API takes it: the chosen type's fields only, empty optional
 * fields left out, scopes split on spaces; a stored secret left as `"***"` is sent as `"***"`
 * (kept).
 */
export function configOf(s: FormState): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const f of fieldsOf(s.type, s.grant)) {
    const v = s.values[f.key] ?? '';
    if (f.key === 'scopes') {
      const scopes = v.split(/\s+/).filter(Boolean);
      if (scopes.length) config.scopes = scopes;
    } else if (v !== '' || f.required) config[f.key] = v;
  }
  if (s.type === 'apiKey') config.in = s.in;
  if (s.type === 'oauth2') {
    config.grant = s.grant;
    config.clientAuthentication = s.clientAuthentication;
  }
  return config;
}

/** The field error the API gave for config key `key` (`config.tokenUrl`, or `tokenUrl`). */
function configError(problem: Problem | undefined, key: string): string | undefined {
  return fieldError(problem, `config.${key}`) ?? fieldError(problem, key);
}

/** What a profile is, in a few words: `OAuth 2.0 · client credentials · https://…/token`. */
export function profileSummary(p: AuthProfile): string {
  const c = p.config ?? {};
  switch (p.type) {
    case 'oauth2':
      return [GRANT_LABELS[c.grant as OAuth2Grant] ?? String(c.grant ?? ''), String(c.tokenUrl ?? '')]
        .filter(Boolean)
        .join(' · ');
    case 'apiKey':
      return `${String(c.name ?? '')} in the ${c.in === 'query' ? 'query' : 'header'}`;
    case 'basic':
      return `user ${String(c.username ?? '')}`;
    default:
      return 'Authorization: Bearer';
  }
}

/** `/auth-profiles`: every profile of the workspace. */
export function AuthProfilesPage() {
  return (
    <ResourceList<AuthProfile>
      title="Auth profiles"
      sub="Named credentials that API nodes, test cases, folders and runners use by name (authProfile); OAuth 2.0 tokens are fetched, cached and refreshed by Assay."
      create={{ href: '/auth-profiles/new', label: 'New auth profile' }}
      path="/v1/auth-profiles"
      what="auth profiles"
      empty={{ title: 'No auth profiles yet', calls: ['POST /v1/auth-profiles'] }}
      table={{
        label: 'Auth profiles',
        key: (p) => p.name,
        columns: [
          { head: 'Name', cell: (p) => <a href={`/auth-profiles/${seg(p.name)}`}>{p.name}</a> },
          { head: 'Type', cell: (p) => <span class="badge">{TYPE_LABELS[p.type] ?? p.type}</span> },
          { head: 'Uses', cell: (p) => <span class="muted">{profileSummary(p)}</span> },
          { head: 'Description', cell: (p) => p.description || <span class="muted">—</span> },
        ],
      }}
    />
  );
}

/** `/auth-profiles/new`: the form, empty. */
export function NewAuthProfilePage() {
  const { route } = useLocation();
  return (
    <>
      <PageHeader
        title="New auth profile"
        sub="Values may hold {{variable}} templates, filled from the run's environment (secret variables included)."
      />
      {can('write') ? (
        <AuthProfileForm onSaved={(p) => route(`/auth-profiles/${seg(p.name)}`)} />
      ) : (
        <p class="notice">A key with write scope can create auth profiles.</p>
      )}
    </>
  );
}

/** `/auth-profiles/:name`: the profile (edit for write keys), "Fetch a token now", delete. */
export function AuthProfilePage() {
  const { params } = useRoute();
  const { route } = useLocation();
  const name = params.name!;
  const profile = useLoad(
    (signal) => api<AuthProfile>('GET', `/v1/auth-profiles/${seg(name)}`, undefined, { signal }),
    [name],
  );
  const [saved, setSaved] = useState(0);
  const [deleteProblem, setDeleteProblem] = useState<Problem | undefined>();
  const p = profile.data;
  const remove = async () => {
    try {
      await api('DELETE', `/v1/auth-profiles/${seg(name)}`);
      route('/auth-profiles');
    } catch (err) {
      setDeleteProblem(problemOf(err));
    }
  };
  return (
    <>
      <PageHeader title={`Auth profile ${name}`} sub={p?.description || undefined}>
        {p && can('write') && (
          <ConfirmButton
            class="danger"
            question={`Delete auth profile “${name}”? Test cases and runners that use it then fail to run.`}
            onConfirm={() => void remove()}
          >
            Delete
          </ConfirmButton>
        )}
      </PageHeader>
      <ProblemBox problem={profile.problem ?? deleteProblem} onRetry={profile.problem ? profile.reload : undefined} />
      {!p && !profile.problem && <Loading what="the auth profile" />}
      {p && (
        <>
          <AuthProfileForm
            key={`${saved}:${p.updatedAt ?? ''}`}
            profile={p}
            justSaved={saved > 0}
            readOnly={!can('write')}
            onSaved={(stored) => {
              setSaved((n) => n + 1);
              profile.replace(stored);
            }}
          />
          {p.type === 'oauth2' && can('write') && <FetchToken name={p.name} />}
          <VersionsPanel
            base={`/v1/auth-profiles/${seg(name)}`}
            what="auth profile"
            revision={p.updatedAt}
            onRestored={(stored) => profile.replace(stored as unknown as AuthProfile)}
          />
        </>
      )}
    </>
  );
}

interface AuthProfileFormProps {
  /** The stored profile (editing), or none (creating). */
  profile?: AuthProfile;
  justSaved?: boolean;
  readOnly?: boolean;
  onSaved: (stored: AuthProfile) => void;
}

/** The create / edit form: name (create only), description, type, the type's fields. */
function AuthProfileForm({ profile, justSaved, readOnly, onSaved }: AuthProfileFormProps) {
  const [s, setS] = useState<FormState>(() => stateOf(profile));
  const [shown, setShown] = useState<Record<string, boolean>>({});
  const [status, setStatus] = useState(justSaved ? 'Saved.' : '');
  const edit = (change: Partial<FormState>) => {
    setS((x) => ({ ...x, ...change }));
    setStatus('');
  };
  const setValue = (key: string, value: string) => edit({ values: { ...s.values, [key]: value } });
  const save = useAction(async () => {
    const body = { name: s.name.trim(), type: s.type, description: s.description, config: configOf(s) };
    const stored = profile
      ? await api<AuthProfile>('PUT', `/v1/auth-profiles/${seg(profile.name)}`, body)
      : await api<AuthProfile>('POST', '/v1/auth-profiles', body);
    onSaved(stored);
  });
  const problem = save.problem;
  const specs = fieldsOf(s.type, s.grant);
  return (
    <form
      class="card res-form"
      aria-label={profile ? 'Edit auth profile' : 'New auth profile'}
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <fieldset class="res-plain-fieldset" disabled={save.busy || readOnly}>
        <h2>{profile ? 'Profile' : 'New auth profile'}</h2>
        <div class="row">
          {!profile && (
            <Field label="Profile name" hint="letters, digits, _ . -" error={fieldError(problem, 'name')}>
              <input required value={s.name} onInput={(e) => edit({ name: e.currentTarget.value })} />
            </Field>
          )}
          <Field label="Type" error={fieldError(problem, 'type')}>
            <select value={s.type} onChange={(e) => edit({ type: e.currentTarget.value as AuthProfileType })}>
              {AUTH_PROFILE_TYPES.map((t) => (
                <option key={t} value={t}>
                  {TYPE_LABELS[t]}
                </option>
              ))}
            </select>
          </Field>
          {s.type === 'oauth2' && (
            <Field label="Grant" error={configError(problem, 'grant')}>
              <select value={s.grant} onChange={(e) => edit({ grant: e.currentTarget.value as OAuth2Grant })}>
                {OAUTH2_GRANTS.map((g) => (
                  <option key={g} value={g}>
                    {GRANT_LABELS[g]}
                  </option>
                ))}
              </select>
            </Field>
          )}
        </div>
        <Field label="Description" error={fieldError(problem, 'description')}>
          <input value={s.description} onInput={(e) => edit({ description: e.currentTarget.value })} />
        </Field>
        <div class="row">
          {specs.map((f) => {
            const value = s.values[f.key] ?? '';
            // A stored secret is never sent to the console: nothing to show, "***" keeps it.
            const stored = f.secret && value === API_MASK;
            return (
              <Field
                key={`${s.type}.${f.key}`}
                label={f.label}
                hint={
                  f.secret
                    ? `secret; ${stored ? `stored — leave ${API_MASK} to keep it` : TEMPLATE_HINT}`
                    : (f.hint ?? TEMPLATE_HINT)
                }
                error={configError(problem, f.key)}
              >
                <span class="res-secret-input">
                  <input
                    name={f.key}
                    aria-label={f.label}
                    required={f.required}
                    type={f.secret && !shown[f.key] ? 'password' : 'text'}
                    autoComplete="off"
                    spellcheck={false}
                    value={value}
                    onInput={(e) => setValue(f.key, e.currentTarget.value)}
                  />
                  {f.secret && !stored && (
                    <button
                      type="button"
                      class="secondary small"
                      aria-pressed={!!shown[f.key]}
                      aria-label={`${shown[f.key] ? 'Hide' : 'Show'} ${f.label}`}
                      onClick={() => setShown((x) => ({ ...x, [f.key]: !x[f.key] }))}
                    >
                      {shown[f.key] ? 'Hide' : 'Show'}
                    </button>
                  )}
                </span>
              </Field>
            );
          })}
          {s.type === 'apiKey' && (
            <Field label="Send the key in" error={configError(problem, 'in')}>
              <select value={s.in} onChange={(e) => edit({ in: e.currentTarget.value as 'header' | 'query' })}>
                <option value="header">a header</option>
                <option value="query">the query</option>
              </select>
            </Field>
          )}
          {s.type === 'oauth2' && (
            <Field
              label="Client authentication"
              hint="RFC 6749 §2.3.1"
              error={configError(problem, 'clientAuthentication')}
            >
              <select
                value={s.clientAuthentication}
                onChange={(e) => edit({ clientAuthentication: e.currentTarget.value as 'basic' | 'body' })}
              >
                <option value="basic">Basic auth header</option>
                <option value="body">In the request body</option>
              </select>
            </Field>
          )}
        </div>
        {!readOnly && (
          <>
            <ProblemBox problem={problem} />
            <div class="row res-actions">
              <button type="submit" disabled={save.busy}>
                {save.busy ? 'Saving…' : profile ? 'Save profile' : 'Create auth profile'}
              </button>
              <span class="muted" aria-live="polite">
                {status}
              </span>
            </div>
          </>
        )}
      </fieldset>
    </form>
  );
}

/** "Fetch a token now": picks an environment, asks the token endpoint, shows what it answered. */
function FetchToken({ name }: { name: string }) {
  const envs = useLoad((signal) => listAll<Environment>('/v1/environments', signal), []);
  const [environment, setEnvironment] = useState('');
  const [token, setToken] = useState<TokenPreview | undefined>();
  const chosen = environment || envs.data?.[0]?.name || '';
  const fetchToken = useAction(async () => {
    setToken(undefined);
    setToken(
      await api<TokenPreview>('POST', `/v1/auth-profiles/${seg(name)}/token`, chosen ? { environment: chosen } : {}),
    );
  });
  return (
    <section class="card res-form res-try" aria-label="Fetch a token now">
      <h2>Fetch a token now</h2>
      <p class="muted">
        Asks the token endpoint with this profile, its templates filled from the environment. The token itself is never
        shown, and not kept: runs fetch and cache their own.
      </p>
      <ProblemBox problem={envs.problem} onRetry={envs.reload} />
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          void fetchToken.run();
        }}
      >
        <Field label="Environment" error={fieldError(fetchToken.problem, 'environment')}>
          <select value={chosen} onChange={(e) => setEnvironment(e.currentTarget.value)}>
            {(envs.data ?? []).map((e) => (
              <option key={e.name} value={e.name}>
                {e.name}
              </option>
            ))}
          </select>
        </Field>
        <button type="submit" disabled={fetchToken.busy || !envs.data}>
          {fetchToken.busy ? 'Fetching…' : 'Fetch a token now'}
        </button>
      </form>
      <ProblemBox problem={fetchToken.problem} />
      {token && (
        <dl class="kv" aria-label="Token">
          <dt>Token type</dt>
          <dd data-testid="token-type">{token.tokenType}</dd>
          <dt>Expires</dt>
          <dd data-testid="token-expires">
            {token.expiresAt ? `${dateTime(token.expiresAt)} (${relative(token.expiresAt)})` : 'no expiry given'}
          </dd>
          <dt>Scope</dt>
          <dd data-testid="token-scope">{token.scope || <span class="muted">none given</span>}</dd>
          <dt>Obtained</dt>
          <dd>{dateTime(token.obtainedAt)}</dd>
          <dt>Preview</dt>
          <dd>
            <code data-testid="token-preview">{token.preview}</code>
          </dd>
        </dl>
      )}
    </section>
  );
}
