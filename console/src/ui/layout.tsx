/**
 * The frame of every signed-in page: the navigation on the left, the workspace and the key's
 * scope at the top, the page on the right. A skip link leads keyboard users past the navigation.
 */
import type { ComponentChildren } from 'preact';
import { useLocation } from 'preact-iso';
import { signOut, useSession } from '../session';

/** The console's sections, in the order of the navigation. */
export const SECTIONS: { href: string; label: string }[] = [
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

export function Layout({ children }: { children: ComponentChildren }) {
  const s = useSession();
  const { path } = useLocation();
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <nav class="nav" aria-label="Sections">
        <a class="brand" href="/runs">
          Assay
        </a>
        <ul>
          {SECTIONS.map((sec) => (
            <li key={sec.href}>
              <a
                href={sec.href}
                aria-current={path === sec.href || path.startsWith(`${sec.href}/`) ? 'page' : undefined}
              >
                {sec.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <div class="top">
        {s && (
          <div class="whoami">
            <span>
              Workspace <strong data-testid="workspace">{s.workspace.name}</strong>
            </span>
            <span class={`badge badge-scope`} title="What this API key may do: read < run < write" data-testid="scope">
              {s.scope}
            </span>
            <span class="muted">key {s.keyName}</span>
            <button type="button" class="secondary small" onClick={signOut}>
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
