/**
 * The Assay web console: a Preact single-page app served by the API under `/`.
 * Signed out, it shows the sign-in form; signed in, the layout with the section pages. Routes:
 * /runs, /runs/:runId, /runs/new, /runs/:a/compare/:b and /flaky (history/), the resource pages (resources/index.tsx) and /requests (local
 * requests, kept only in this browser: local/index.tsx).
 */
import { render } from 'preact';
import { LocationProvider, Router, Route, useLocation } from 'preact-iso';
import { useEffect } from 'preact/hooks';
import './styles.css';
import { useSession } from './session';
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

function App() {
  const s = useSession();
  if (!s) return <SignIn />;
  return (
    <Layout>
      <Router>
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
        <Route default component={NotFound} />
      </Router>
    </Layout>
  );
}

render(
  <LocationProvider>
    <App />
  </LocationProvider>,
  document.getElementById('app')!,
);
