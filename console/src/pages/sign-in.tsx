/**
 * Sign-in with an API key: the key is checked with `GET /v1/workspaces`, which
 * names the workspace and the key's scope; it is kept in sessionStorage, or in localStorage when
 * "Remember on this device" is ticked.
 */
import { useState } from 'preact/hooks';
import { api, problemOf, type Page, type Problem } from '../api';
import { signIn, type Scope } from '../session';
import { Field, ProblemBox } from '../ui/kit';

interface WorkspaceItem {
  id: string;
  name: string;
  key: { id: string; name: string; scope: Scope };
}

export function SignIn() {
  const [key, setKey] = useState('');
  const [remember, setRemember] = useState(false);
  const [problem, setProblem] = useState<Problem | undefined>();
  const [busy, setBusy] = useState(false);

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

  return (
    <main class="sign-in" id="main">
      <form onSubmit={submit} class="card" aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in to Assay</h1>
        <p class="muted">
          Paste an API key. <code>make dev</code> prints one; an operator issues more with{' '}
          <code>npm run keys -- create</code>.
        </p>
        <Field label="API key">
          <input
            type="password"
            name="key"
            autoComplete="off"
            required
            value={key}
            onInput={(e) => setKey(e.currentTarget.value)}
            autoFocus
          />
        </Field>
        <label class="check">
          <input type="checkbox" checked={remember} onChange={(e) => setRemember(e.currentTarget.checked)} /> Remember
          on this device
        </label>
        <ProblemBox problem={problem} />
        <button type="submit" disabled={busy || !key.trim()}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
