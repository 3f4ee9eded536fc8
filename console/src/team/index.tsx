/**
 * The workspace's people and trail (docs/console.md "Members", "API keys", "Audit"; the API:
 * docs/teams.md): `/members` (admins), `/keys` (everyone: one's own keys, admins all) and `/audit`
 * (admins), mounted by main.tsx and listed in the navigation under "Workspace" (ui/layout.tsx
 * `TEAM_SECTIONS`, which hides what the caller's scope does not reach). Each page is its own chunk,
 * loaded when opened: the runs pages do not carry them. Styles: team.css (imported by each page).
 */
import type { ComponentType } from 'preact';
import { lazy } from 'preact-iso';

const MembersPage = lazy(() => import('./members').then((m) => m.MembersPage));
const KeysPage = lazy(() => import('./keys').then((m) => m.KeysPage));
const AuditPage = lazy(() => import('./audit').then((m) => m.AuditPage));

/** Routes of the people pages: path → page. */
export const teamRoutes: { path: string; component: ComponentType<Record<string, unknown>> }[] = [
  { path: '/members', component: MembersPage },
  { path: '/keys', component: KeysPage },
  { path: '/audit', component: AuditPage },
];
