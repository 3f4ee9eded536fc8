/**
 * `/members` (admins; docs/console.md "Members"): the workspace's members with their name, e-mail,
 * role (and whether it comes from an identity-provider group), last sign-in; add one by e-mail with a
 * role, change a role, remove a member (after a confirmation: their keys in this workspace are
 * revoked). `GET/POST /v1/members`, `PATCH/DELETE /v1/members/{userId}` (docs/teams.md "Members").
 * Only an owner grants, changes or removes the owner role; the API answers 409 `last-owner` when
 * the last owner would go, shown as its problem.
 */
import './team.css';
import { useState } from 'preact/hooks';
import { api, problemOf, type Problem } from '../api';
import { useLoad } from '../hooks';
import { dateTime, relative } from '../format';
import { can, ROLES, session, type Role } from '../session';
import { listAll, Loading } from '../resources/common';
import { ConfirmButton, Empty, Field, PageHeader, ProblemBox, fieldError } from '../ui/kit';
import type { Member } from './types';

const seg = encodeURIComponent;

/** The roles the caller may give: all but `owner` unless the caller is an owner. */
function grantable(): Role[] {
  return ROLES.filter((r) => r !== 'owner' || can('owner'));
}

function AddMember({ onAdded }: { onAdded: (m: Member) => void }) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem>();
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setProblem(undefined);
    try {
      const m = await api<Member>('POST', '/v1/members', { email: email.trim(), name: name.trim() || undefined, role });
      onAdded(m);
      setEmail('');
      setName('');
    } catch (err) {
      setProblem(problemOf(err, 'Could not add the member'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card team-form" aria-label="Add a member" onSubmit={submit}>
      <h2>Add a member</h2>
      <p class="muted">
        They sign in with single sign-on using this e-mail address (verified by the identity provider); until then they
        are listed with no sign-in.
      </p>
      <div class="row">
        <Field label="E-mail" error={fieldError(problem, 'email')}>
          <input
            type="email"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
            autoComplete="off"
          />
        </Field>
        <Field label="Name (optional)" error={fieldError(problem, 'name')}>
          <input value={name} onInput={(e) => setName(e.currentTarget.value)} autoComplete="off" />
        </Field>
        <Field label="Role" error={fieldError(problem, 'role')}>
          <select value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
            {grantable().map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </Field>
        <button type="submit" disabled={busy || !email.trim()} class="team-form-submit">
          {busy ? 'Adding…' : 'Add member'}
        </button>
      </div>
      <ProblemBox problem={problem && !problem.errors?.length ? problem : undefined} />
    </form>
  );
}

/** The role select of one member: the direct role, or "group only" when a group gives one. */
function RoleSelect({ member, onChange, busy }: { member: Member; onChange: (r: Role | null) => void; busy: boolean }) {
  const options = grantable();
  const locked = member.role === 'owner' && !can('owner');
  const value = member.directRole ?? '';
  return (
    <select
      aria-label={`Role of ${member.name || member.email}`}
      value={value}
      disabled={busy || locked}
      title={locked ? 'Only an owner changes an owner’s role' : undefined}
      onChange={(e) => onChange((e.currentTarget.value || null) as Role | null)}
    >
      {(member.groupRole || !member.directRole) && (
        <option value="">{member.groupRole ? `— (group: ${member.groupRole})` : '—'}</option>
      )}
      {(locked ? ROLES : options).map((r) => (
        <option key={r} value={r}>
          {r}
        </option>
      ))}
    </select>
  );
}

/** The route `/members`. */
export function MembersPage() {
  const list = useLoad((signal) => listAll<Member>('/v1/members', signal), []);
  const [problem, setProblem] = useState<Problem>();
  const [busy, setBusy] = useState<string>();
  const me = session();
  const myId = me?.kind === 'user' ? me.user.id : undefined;

  if (!can('admin'))
    return (
      <Empty title="Members are for workspace admins">
        Ask an admin of this workspace to add people or change roles.
      </Empty>
    );

  const put = (m: Member) => list.data && list.replace(list.data.map((x) => (x.userId === m.userId ? m : x)));
  const change = async (m: Member, role: Role | null) => {
    setProblem(undefined);
    setBusy(m.userId);
    try {
      put(await api<Member>('PATCH', `/v1/members/${seg(m.userId)}`, { role }));
    } catch (err) {
      setProblem(problemOf(err, 'Could not change the role'));
      list.reload();
    } finally {
      setBusy(undefined);
    }
  };
  const remove = async (m: Member) => {
    setProblem(undefined);
    setBusy(m.userId);
    try {
      await api('DELETE', `/v1/members/${seg(m.userId)}`);
      if (list.data) list.replace(list.data.filter((x) => x.userId !== m.userId));
    } catch (err) {
      setProblem(problemOf(err, 'Could not remove the member'));
    } finally {
      setBusy(undefined);
    }
  };
  const items = list.data;
  return (
    <>
      <PageHeader
        title="Members"
        sub={`Who may use ${session()?.workspace.name ?? 'this workspace'}, and as what: viewer < runner < editor < admin < owner.`}
      />
      <AddMember
        onAdded={(m) => {
          list.replace([...(list.data ?? []).filter((x) => x.userId !== m.userId), m]);
        }}
      />
      <ProblemBox problem={list.problem} onRetry={list.reload} />
      <ProblemBox problem={problem} />
      {!items && !list.problem && <Loading what="the members" />}
      {items?.length === 0 && <Empty title="No members yet">Add one above.</Empty>}
      {items && items.length > 0 && (
        <table aria-label="Members">
          <thead>
            <tr>
              <th>Name</th>
              <th>E-mail</th>
              <th>Role</th>
              <th>From a group</th>
              <th>Last sign-in</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {items.map((m) => (
              <tr key={m.userId} data-member={m.email}>
                <td>
                  {m.name || <span class="muted">—</span>}
                  {m.userId === myId && <span class="muted"> (you)</span>}
                </td>
                <td>{m.email}</td>
                <td>
                  <RoleSelect member={m} busy={busy === m.userId} onChange={(r) => void change(m, r)} />{' '}
                  <span class="badge badge-scope" title="Effective role: the higher of the direct and the group role">
                    {m.role}
                  </span>
                </td>
                <td>{m.groupRole ? m.groupRole : <span class="muted">no</span>}</td>
                <td title={m.lastSignInAt ? dateTime(m.lastSignInAt) : undefined}>
                  {m.lastSignInAt ? relative(m.lastSignInAt) : <span class="muted">never</span>}
                </td>
                <td>
                  {(m.role !== 'owner' || can('owner')) && (
                    <ConfirmButton
                      class="danger small"
                      aria-label={`Remove ${m.name || m.email}`}
                      disabled={busy === m.userId}
                      question={`Remove ${m.name || m.email} from ${session()?.workspace.name ?? 'this workspace'}? Their API keys here are revoked and they lose access at once.${m.groupRole ? ' Their group gives them the role again at their next sign-in unless the group mapping changes.' : ''}`}
                      onConfirm={() => void remove(m)}
                    >
                      Remove
                    </ConfirmButton>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
