/**
 * `/keys` (everyone; docs/console.md "API keys"): my API keys (admins: every key of the workspace,
 * with its owner), their scope, last use and expiry; create one (a name, a scope no higher than
 * mine and at most admin, an optional expiry date, and for admins an optional service account
 * name), its secret shown once with a copy button; revoke after a confirmation.
 * `GET/POST /v1/keys`, `DELETE /v1/keys/{keyId}` (docs/teams.md "Keys").
 *
 * A personal key belongs to a signed-in user: signed in with a key, only an admin key can create
 * keys, and those belong to a service account (the API answers 403 otherwise).
 */
import './team.css';
import { useState } from 'preact/hooks';
import { api, problemOf, type Problem } from '../api';
import { useLoad } from '../hooks';
import { dateTime, relative } from '../format';
import { can, SCOPES, scopeAllows, session, type Scope } from '../session';
import { listAll, Loading } from '../resources/common';
import { ConfirmButton, CopyButton, Empty, Field, PageHeader, ProblemBox, fieldError } from '../ui/kit';
import type { ApiKeyInfo, CreatedKey, KeyOwner } from './types';

const seg = encodeURIComponent;

/** The scopes the caller may put on a new key: up to its own, and never above admin. */
export function grantableScopes(mine: Scope | undefined): Scope[] {
  if (!mine) return [];
  return SCOPES.filter((s) => s !== 'owner' && scopeAllows(mine, s));
}

/**
 * The end of the local day `date` (`2026-12-31` from an `<input type="date">`) as an ISO 8601
 * instant: a key "expiring on" a day works through that day. Empty for an empty input.
 */
export function endOfDay(date: string): string | undefined {
  if (!date) return undefined;
  const [y, m, d] = date.split('-').map(Number);
  if (!y || !m || !d) return undefined;
  return new Date(y, m - 1, d, 23, 59, 59).toISOString();
}

function ownerText(owner: KeyOwner | undefined): string {
  if (!owner) return '—';
  if (owner.type === 'user') return owner.name;
  if (owner.type === 'service-account') return `${owner.name} (service account)`;
  return 'workspace';
}

/** The secret of a key just created, shown once. */
function NewKey({ created, onDone }: { created: CreatedKey; onDone: () => void }) {
  return (
    <div class="notice team-new-key" role="status" aria-label="New API key">
      <strong>Key “{created.name}” created.</strong>
      <p>
        Copy it now: <strong>Assay shows it only once</strong> and keeps only its hash. Store it where secrets go (a
        password manager, your CI’s secret store).
      </p>
      <div class="team-secret">
        <code data-testid="new-key">{created.key}</code> <CopyButton text={created.key} label="Copy key" />
      </div>
      <button type="button" class="secondary small" onClick={onDone}>
        Done
      </button>
    </div>
  );
}

function CreateKey({ onCreated }: { onCreated: (k: CreatedKey) => void }) {
  const s = session();
  const scopes = grantableScopes(s?.scope);
  const admin = can('admin');
  const viaKey = s?.kind === 'key';
  const [name, setName] = useState('');
  const [scope, setScope] = useState<Scope>(scopes.includes('read') ? 'read' : (scopes[0] ?? 'read'));
  const [expires, setExpires] = useState('');
  const [serviceAccount, setServiceAccount] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem>();
  if (viaKey && !admin)
    return (
      <p class="muted">
        Keys you create belong to you: sign in with single sign-on to create one. (Signed in with a key, only an admin
        key creates keys, for service accounts.)
      </p>
    );
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setProblem(undefined);
    try {
      const k = await api<CreatedKey>('POST', '/v1/keys', {
        name: name.trim(),
        scope,
        ...(expires ? { expiresAt: endOfDay(expires) } : {}),
        ...(admin && serviceAccount.trim() ? { serviceAccount: serviceAccount.trim() } : {}),
      });
      onCreated(k);
      setName('');
      setExpires('');
      setServiceAccount('');
    } catch (err) {
      setProblem(problemOf(err, 'Could not create the key'));
    } finally {
      setBusy(false);
    }
  };
  const today = new Date().toISOString().slice(0, 10);
  return (
    <form class="card team-form" aria-label="Create an API key" onSubmit={submit}>
      <h2>Create an API key</h2>
      <div class="row">
        <Field label="Key name" error={fieldError(problem, 'name')} hint="What uses it: “CI pipeline”, “my laptop”">
          <input required value={name} onInput={(e) => setName(e.currentTarget.value)} autoComplete="off" />
        </Field>
        <Field label="Scope" error={fieldError(problem, 'scope')} hint="At most what you may do yourself">
          <select value={scope} onChange={(e) => setScope(e.currentTarget.value as Scope)}>
            {scopes.map((x) => (
              <option key={x} value={x}>
                {x}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Expires on (optional)" error={fieldError(problem, 'expiresAt')} hint="Works through that day">
          <input type="date" min={today} value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />
        </Field>
        {admin && (
          <Field
            label={viaKey ? 'Service account' : 'Service account (optional)'}
            error={fieldError(problem, 'serviceAccount')}
            hint={viaKey ? 'Keys made with a key belong to a service account' : 'Empty: the key is yours'}
          >
            <input
              required={viaKey}
              value={serviceAccount}
              onInput={(e) => setServiceAccount(e.currentTarget.value)}
              autoComplete="off"
            />
          </Field>
        )}
        <button type="submit" class="team-form-submit" disabled={busy || !name.trim() || scopes.length === 0}>
          {busy ? 'Creating…' : 'Create key'}
        </button>
      </div>
      <ProblemBox problem={problem && !problem.errors?.length ? problem : undefined} />
    </form>
  );
}

/** The route `/keys`. */
export function KeysPage() {
  const list = useLoad((signal) => listAll<ApiKeyInfo>('/v1/keys', signal), []);
  const [created, setCreated] = useState<CreatedKey>();
  const [problem, setProblem] = useState<Problem>();
  const admin = can('admin');
  const revoke = async (k: ApiKeyInfo) => {
    setProblem(undefined);
    try {
      await api('DELETE', `/v1/keys/${seg(k.id)}`);
      list.reload();
    } catch (err) {
      setProblem(problemOf(err, 'Could not revoke the key'));
    }
  };
  const now = Date.now();
  const items = list.data;
  return (
    <>
      <PageHeader
        title="API keys"
        sub={
          admin
            ? 'Every key of this workspace. A person’s key never does more than its owner’s role allows.'
            : 'Your keys for this workspace. A key never does more than your role allows.'
        }
      />
      {created && <NewKey created={created} onDone={() => setCreated(undefined)} />}
      <CreateKey
        onCreated={(k) => {
          setCreated(k);
          list.reload();
        }}
      />
      <ProblemBox problem={list.problem} onRetry={list.reload} />
      <ProblemBox problem={problem} />
      {!items && !list.problem && <Loading what="the keys" />}
      {items?.length === 0 && <Empty title="No API keys yet">Create one above for scripts and CI.</Empty>}
      {items && items.length > 0 && (
        <table aria-label="API keys">
          <thead>
            <tr>
              <th>Name</th>
              <th>Key</th>
              <th>Scope</th>
              {admin && <th>Owner</th>}
              <th>Created</th>
              <th>Last used</th>
              <th>Expires</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {items.map((k) => {
              const expired = !!k.expiresAt && new Date(k.expiresAt).getTime() < now;
              return (
                <tr key={k.id} data-key={k.name}>
                  <td>{k.name}</td>
                  <td>
                    <code>{k.prefix}…</code>
                  </td>
                  <td>
                    <span class="badge badge-scope">{k.scope}</span>
                  </td>
                  {admin && <td>{ownerText(k.owner)}</td>}
                  <td>{dateTime(k.createdAt)}</td>
                  <td title={k.lastUsedAt ? dateTime(k.lastUsedAt) : undefined}>
                    {k.lastUsedAt ? relative(k.lastUsedAt) : <span class="muted">never</span>}
                  </td>
                  <td>
                    {k.revokedAt ? (
                      <span class="badge badge-failed">revoked {dateTime(k.revokedAt)}</span>
                    ) : k.expiresAt ? (
                      <span class={expired ? 'badge badge-failed' : undefined} title={dateTime(k.expiresAt)}>
                        {expired ? `expired ${relative(k.expiresAt)}` : dateTime(k.expiresAt)}
                      </span>
                    ) : (
                      <span class="muted">never</span>
                    )}
                  </td>
                  <td>
                    {!k.revokedAt && (
                      <ConfirmButton
                        class="danger small"
                        aria-label={`Revoke ${k.name}`}
                        question={`Revoke the key “${k.name}” (${k.prefix}…)? Whatever uses it is refused from now on.`}
                        onConfirm={() => void revoke(k)}
                      >
                        Revoke
                      </ConfirmButton>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </>
  );
}
