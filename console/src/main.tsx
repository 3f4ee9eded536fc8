/**
 * The Assay web console: a Preact single-page app served by the API under `/`.
 * It first asks whether a console session is live (`GET /auth/session`, session.ts `startSession`);
 * signed out, it shows the sign-in page (SSO and API key); signed in, the layout with the section
 * pages. Routes: /runs, /runs/:runId, /runs/new, /runs/:a/compare/:b and /flaky (history/), the
 * resource pages (resources/index.tsx), /requests (local requests, kept only in this browser:
 * local/index.tsx) and the workspace's people pages /members, /keys and /audit (team/index.tsx).
 * The pages are mounted again when the workspace changes (the switcher in ui/layout.tsx).
 */
import { render } from 'preact';
import { LocationProvider, Router, Route, useLocation } from 'preact-iso';
import { useEffect } from 'preact/hooks';
import './styles.css';
import { memberOfNothing, sessionKnown, signOut, startSession, useSession } from './session';
import { Layout } from './ui/layout';
import { SignIn } from './pages/sign-in';
import { RunsPage } from './pages/runs';
import { RunPage } from './pages/run';
import { StartRunPage } from './pages/start-run';
import { resourceRoutes } from './resources';
import { LocalRequestsPage } from './local';
import { Empty } from './ui/kit';
import { ComparePage } from './history/compare';
import { FlakyPage } from './history/flaky';
import { teamRoutes } from './team';

function Home() {
  const { route } = useLocation();
  useEffect(() => route('/runs', true), []);
  return null;
}

function NotFound() {
  return (
    <Empty title="No such page">
      <a href="/runs">Go to the runs</a>
    </Empty>
  );
}

/** A signed-in user who is a member of no workspace: what to do about it. */
function NoWorkspace({ name }: { name: string }) {
  return (
    <main class="sign-in" id="main">
      <div class="card">
        <h1>No workspace yet</h1>
        <p>
          {name}, you are signed in but not a member of any workspace. Ask a workspace admin to add you (Members page),
          or to map one of your groups to a role.
        </p>
        <button type="button" class="secondary" onClick={() => void signOut()}>
          Sign out
        </button>
      </div>
    </main>
  );
}

function App() {
  const s = useSession();
  if (!s && !sessionKnown())
    return (
      <main class="sign-in" id="main" aria-busy="true">
        <p class="muted">Loading…</p>
      </main>
    );
  const nothing = memberOfNothing();
  if (!s && nothing) return <NoWorkspace name={nothing.user.name || nothing.user.email} />;
  if (!s) return <SignIn />;
  return (
    <Layout>
      <Router key={s.workspace.id}>
        <Route path="/" component={Home} />
        <Route path="/runs" component={RunsPage} />
        <Route path="/runs/new" component={StartRunPage} />
        <Route path="/runs/:runId" component={RunPage} />
        <Route path="/runs/:a/compare/:b" component={ComparePage} />
        <Route path="/flaky" component={FlakyPage} />
        {resourceRoutes.map((r) => (
          <Route key={r.path} path={r.path} component={r.component} />
        ))}
        <Route path="/requests" component={LocalRequestsPage} />
        <Route path="/requests/:requestId" component={LocalRequestsPage} />
        {teamRoutes.map((r) => (
          <Route key={r.path} path={r.path} component={r.component} />
        ))}
        <Route default component={NotFound} />
      </Router>
    </Layout>
  );
}

void startSession();

render(
  <LocationProvider>
    <App />
  </LocationProvider>,
  document.getElementById('app')!,
);
