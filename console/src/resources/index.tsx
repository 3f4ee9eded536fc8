/**
 * The resource pages (test cases, environments, runners, deployments, API designs, libraries) and
 * their routes, mounted by main.tsx.
 */
import type { ComponentType } from 'preact';
import { Empty } from '../ui/kit';

function Placeholder() {
  return <Empty title="Coming soon" />;
}

/** Routes of the resource pages: path (preact-iso syntax, `:name` one segment) → page. */
export const resourceRoutes: { path: string; component: ComponentType<object> }[] = [
  { path: '/test-cases', component: Placeholder },
  { path: '/environments', component: Placeholder },
  { path: '/runners', component: Placeholder },
  { path: '/deployments', component: Placeholder },
  { path: '/designs', component: Placeholder },
  { path: '/libraries', component: Placeholder },
];
