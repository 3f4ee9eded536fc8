/**
 * The frame of every signed-in page: the navigation on the left, at the top the workspace (a
 * switcher when a signed-in user belongs to several), who is signed in (the user's name and role
 * there, or the key's name and scope) and "Sign out", the page on the right. A skip link leads
 * keyboard users past the navigation. Sections that need a scope (Members, Audit: admin) are
 * listed only for callers who have it.
 */
import type { ComponentChildren } from 'preact';
import { useLocation } from 'preact-iso';
import { can, chooseWorkspace, signOut, useSession, type Scope } from '../session';

/** A section of the navigation; `needs` hides it from callers below that scope. */
export interface Section {
  href: string;
  label: string;
  needs?: Scope;
}

/** The console's sections, in the order of the navigation. */
export const SECTIONS: Section[] = [
  { href: '/runs', label: 'Runs' },
  { href: '/flaky', label: 'Flaky tests' },
  { href: '/test-cases', label: 'Test cases' },
  { href: '/environments', label: 'Environments' },
  { href: '/auth-profiles', label: 'Auth profiles' },
  { href: '/runners', label: 'Runners' },
  { href: '/deployments', label: 'Deployments' },
  { href: '/designs', label: 'API designs' },
  { href: '/mock-collections', label: 'Mock data' },
  { href: '/libraries', label: 'Libraries' },
  { href: '/files', label: 'Files' },
  { href: '/requests', label: 'Local requests' },
];

/** The workspace's people and trail (team/): after the resources, under "Workspace". */
export const TEAM_SECTIONS: Section[] = [
  { href: '/members', label: 'Members', needs: 'admin' },
  { href: '/keys', label: 'API keys' },
  { href: '/audit', label: 'Audit', needs: 'admin' },
];

function SectionLinks({ sections, path }: { sections: Section[]; path: string }) {
  return (
    <ul>
      {sections
        .filter((sec) => !sec.needs || can(sec.needs))
        .map((sec) => (
          <li key={sec.href}>
            <a href={sec.href} aria-current={path === sec.href || path.startsWith(`${sec.href}/`) ? 'page' : undefined}>
              {sec.label}
            </a>
          </li>
        ))}
    </ul>
  );
}

export function Layout({ children }: { children: ComponentChildren }) {
  const s = useSession();
  const { path, route } = useLocation();
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <nav class="nav" aria-label="Sections">
        <a class="brand" href="/runs">
          Assay
        </a>
        <SectionLinks sections={SECTIONS} path={path} />
        <div class="nav-group" aria-hidden="true">
          Workspace
        </div>
        <SectionLinks sections={TEAM_SECTIONS} path={path} />
      </nav>
      <div class="top">
        {s && (
          <div class="whoami">
            {s.kind === 'user' && s.workspaces.length > 1 ? (
              <label>
                Workspace{' '}
                <select
                  data-testid="workspace"
                  value={s.workspace.id}
                  onChange={(e) => {
                    chooseWorkspace(e.currentTarget.value);
                    route('/runs');
                  }}
                >
                  {s.workspaces.map((w) => (
                    <option key={w.id} value={w.id}>
                      {w.name} ({w.role})
                    </option>
                  ))}
                </select>
              </label>
            ) : (
              <span>
                Workspace <strong data-testid="workspace">{s.workspace.name}</strong>
              </span>
            )}
            {s.kind === 'user' ? (
              <>
                <span data-testid="user" title={s.user.email}>
                  {s.user.name || s.user.email}
                </span>
                <span
                  class="badge badge-scope"
                  title={`Your role in this workspace: viewer < runner < editor < admin < owner (it allows ${s.scope})`}
                  data-testid="role"
                >
                  {s.role}
                </span>
              </>
            ) : (
              <>
                <span
                  class="badge badge-scope"
                  title="What this API key may do: read < run < write < admin"
                  data-testid="scope"
                >
                  {s.scope}
                </span>
                <span class="muted">key {s.keyName}</span>
              </>
            )}
            <button type="button" class="secondary small" onClick={() => void signOut()}>
              Sign out
            </button>
          </div>
        )}
      </div>
      <main id="main" class="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
