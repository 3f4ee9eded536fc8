/**
 * Who is signed in: the API key, kept in sessionStorage (gone when the tab closes) unless the user
 * ticks "remember", then in localStorage. The workspace and the key's scope come
 * from `GET /v1/workspaces` (its `key` field) when signing in.
 */
import { useEffect, useState } from 'preact/hooks';

export type Scope = 'read' | 'run' | 'write';

/** The signed-in key and what the API said about it. */
export interface Session {
  key: string;
  workspace: { id: string; name: string };
  scope: Scope;
  keyName: string;
}

const STORAGE_KEY = 'assay.session';
const listeners = new Set<() => void>();

function read(): Session | null {
  const raw = sessionStorage.getItem(STORAGE_KEY) ?? localStorage.getItem(STORAGE_KEY);
  if (!raw) return null;
  try {
    return JSON.parse(raw) as Session;
  } catch {
    return null;
  }
}

let current: Session | null = read();

/** The current session, or null when signed out. */
export function session(): Session | null {
  return current;
}

/** Stores the session; `remember` keeps it across browser restarts (localStorage). */
export function signIn(next: Session, remember: boolean): void {
  sessionStorage.removeItem(STORAGE_KEY);
  localStorage.removeItem(STORAGE_KEY);
  (remember ? localStorage : sessionStorage).setItem(STORAGE_KEY, JSON.stringify(next));
  current = next;
  listeners.forEach((l) => l());
}

/** Forgets the key everywhere. */
export function signOut(): void {
  sessionStorage.removeItem(STORAGE_KEY);
  localStorage.removeItem(STORAGE_KEY);
  current = null;
  listeners.forEach((l) => l());
}

/** True when the session's scope is at least `needed` (read < run < write, docs/api.md). */
export function can(needed: Scope): boolean {
  const order: Scope[] = ['read', 'run', 'write'];
  return current !== null && order.indexOf(current.scope) >= order.indexOf(needed);
}

/** Re-renders the component when the session changes. */
export function useSession(): Session | null {
  const [, setTick] = useState(0);
  useEffect(() => {
    const l = () => setTick((t) => t + 1);
    listeners.add(l);
    return () => listeners.delete(l);
  }, []);
  return current;
}
