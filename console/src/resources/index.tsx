/**
 * The resource pages: test cases, environments, auth profiles, runners, deployments, API
 * designs, mock data collections, libraries and files, and their routes, mounted by main.tsx. Each page reads the REST API
 * (docs/api.md, docs/deployments.md, docs/mocks.md); edit controls appear only for write keys
 * (`can('write')`), so read keys see read-only pages. Styles: resources.css.
 */
import type { ComponentType } from 'preact';
import './resources.css';
import { lazy } from 'preact-iso';
import { TestCasesPage } from './test-cases';
import { EnvironmentPage, EnvironmentsPage } from './environments';
import { NewRunnerPage, RunnerPage, RunnersPage } from './runners';
import { DeploymentPage, DeploymentsPage, NewDeploymentPage } from './deployments';
import { DesignPage, DesignsPage, NewDesignPage } from './designs';
import { LibrariesPage } from './libraries';
import { MockCollectionPage, MockCollectionsPage } from './mock-collections';
import { AuthProfilePage, AuthProfilesPage, NewAuthProfilePage } from './auth-profiles';
import { FilesPage } from './files';

/*
 * The test-case designer is its own chunk, loaded when a test case page opens: the other pages do
 * not pay for its tree, forms and drag and drop (docs/benchmarks.md "The designer in the browser").
 */
const TestCaseDesignerPage = lazy(() => import('../designer').then((m) => m.TestCaseDesignerPage));
const NewTestCaseDesignerPage = lazy(() => import('../designer').then((m) => m.NewTestCaseDesignerPage));

/**
 * Routes of the resource pages: path (preact-iso syntax, `:name` one segment) → page. The fixed
 * `…/new` paths come before `…/:id` (preact-iso picks the first match).
 */
export const resourceRoutes: { path: string; component: ComponentType<Record<string, unknown>> }[] = [
  { path: '/test-cases', component: TestCasesPage },
  { path: '/test-cases/new', component: NewTestCaseDesignerPage },
  { path: '/test-cases/:id', component: TestCaseDesignerPage },
  { path: '/environments', component: EnvironmentsPage },
  { path: '/environments/:name', component: EnvironmentPage },
  { path: '/auth-profiles', component: AuthProfilesPage },
  { path: '/auth-profiles/new', component: NewAuthProfilePage },
  { path: '/auth-profiles/:name', component: AuthProfilePage },
  { path: '/runners', component: RunnersPage },
  { path: '/runners/new', component: NewRunnerPage },
  { path: '/runners/:name', component: RunnerPage },
  { path: '/deployments', component: DeploymentsPage },
  { path: '/deployments/new', component: NewDeploymentPage },
  { path: '/deployments/:id', component: DeploymentPage },
  { path: '/designs', component: DesignsPage },
  { path: '/designs/new', component: NewDesignPage },
  { path: '/designs/:id', component: DesignPage },
  { path: '/mock-collections', component: MockCollectionsPage },
  { path: '/mock-collections/:id', component: MockCollectionPage },
  { path: '/libraries', component: LibrariesPage },
  { path: '/files', component: FilesPage },
];
