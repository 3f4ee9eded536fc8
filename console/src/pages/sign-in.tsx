/**
 * The sign-in page (docs/console.md "Signing in"). When the server has OpenID Connect configured
 * (`GET /auth/config` `oidc.enabled`, docs/teams.md "Sign-in") the first choice is "Sign in with
 * <provider>", which leaves for `/auth/login?return=<this address>`; the provider sends the browser
 * back through `/auth/callback`, which sets the session cookie (or returns with `?signInError=<code>`,
 * shown here). Below it, or alone, the API-key form: the key is checked with `GET /v1/workspaces`,
 * which names the workspace and the key's scope; it is kept in sessionStorage, or in localStorage
 * when "Remember on this device" is ticked.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, problemOf, type Page, type Problem } from '../api';
import { loadAuthConfig, sessionEndedReason, signIn, type AuthConfig, type Scope } from '../session';
import { Field, ProblemBox } from '../ui/kit';

interface WorkspaceItem {
  id: string;
  name: string;
  key: { id: string; name: string; scope: Scope };
}

/** What a `?signInError=` code (src/problems.ts codes) means to the person signing in. */
const SIGN_IN_ERRORS: Record<string, string> = {
  'sign-in-failed': 'The identity provider did not sign you in (the sign-in was cancelled, expired or refused).',
  'not-a-member': 'You signed in, but you are not a member of any workspace yet: ask a workspace admin to add you.',
  unauthorized: 'The identity provider did not confirm who you are.',
  forbidden: 'Your account may not use Assay.',
};

/** The `?signInError=` of the address (then taken out of it, so a reload does not show it again). */
function takeSignInError(): Problem | undefined {
  const url = new URL(window.location.href);
  const code = url.searchParams.get('signInError');
  if (!code) return undefined;
  url.searchParams.delete('signInError');
  history.replaceState(history.state, '', url.pathname + url.search + url.hash);
  return { title: 'Sign-in failed', status: 0, code, detail: SIGN_IN_ERRORS[code] ?? `The server said: ${code}.` };
}

export function SignIn() {
  const [key, setKey] = useState('');
  const [remember, setRemember] = useState(false);
  const [problem, setProblem] = useState<Problem | undefined>();
  const [busy, setBusy] = useState(false);
  const [ssoProblem] = useState(takeSignInError);
  const [ended] = useState(sessionEndedReason);
  const [config, setConfig] = useState<AuthConfig | undefined>();

  useEffect(() => {
    let live = true;
    void loadAuthConfig().then((c) => live && setConfig(c));
    return () => {
      live = false;
    };
  }, []);
  const sso = config?.oidc.enabled ? config.oidc.displayName || 'single sign-on' : undefined;

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setProblem(undefined);
    try {
      const trimmed = key.trim();
      const page = await api<Page<WorkspaceItem>>('GET', '/v1/workspaces', undefined, { key: trimmed });
      const w = page.items[0]!;
      signIn(
        { key: trimmed, workspace: { id: w.id, name: w.name }, scope: w.key.scope, keyName: w.key.name },
        remember,
      );
    } catch (err) {
      setProblem(problemOf(err, 'Sign-in failed'));
    } finally {
      setBusy(false);
    }
  };

  const goSso = () => {
    const here = window.location.pathname + window.location.search;
    window.location.assign(`/auth/login?return=${encodeURIComponent(here)}`);
  };

  return (
    <main class="sign-in" id="main">
      <div class="card sign-in-card">
        <h1 id="sign-in-title">Sign in to Assay</h1>
        {ended && (
          <p class="notice" role="status">
            {ended}
          </p>
        )}
        <ProblemBox problem={ssoProblem} />
        {sso && (
          <div class="sign-in-sso">
            <button type="button" class="sign-in-sso-button" onClick={goSso}>
              Sign in with {sso}
            </button>
            <p class="sign-in-or muted">or use an API key</p>
          </div>
        )}
        <form onSubmit={submit} aria-labelledby="sign-in-title">
          <p class="muted">
            Paste an API key. <code>make dev</code> prints one; an operator issues more with{' '}
            <code>npm run keys -- create</code>
            {sso ? ', and you can create your own on the API keys page once signed in' : ''}.
          </p>
          <Field label="API key">
            <input
              type="password"
              name="key"
              autoComplete="off"
              required
              value={key}
              onInput={(e) => setKey(e.currentTarget.value)}
              autoFocus={!sso}
            />
          </Field>
          <label class="check">
            <input type="checkbox" checked={remember} onChange={(e) => setRemember(e.currentTarget.checked)} /> Remember
            on this device
          </label>
          <ProblemBox problem={problem} />
          <button type="submit" class={sso ? 'secondary' : undefined} disabled={busy || !key.trim()}>
            {busy ? 'Checking…' : 'Sign in'}
          </button>
        </form>
      </div>
    </main>
  );
}
