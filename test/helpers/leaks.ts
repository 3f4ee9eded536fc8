/**
 * Order independence of the suite: every top-level `describe` must leave the mocha
 * process as it found it. After each one (after its own `after` hooks), a check fails that
 * `describe` when it left
 *
 * - `process.env` changed (a variable set, changed or removed and not restored), or
 * - a server listening that it started (an API, a worker's HTTP port, a target, a receiver...).
 *
 * The failure names what was left (and where a server was started); the check then restores the
 * environment and closes the servers, so the files after it run as they would alone.
 * test/setup.ts installs it. Both checks are cheap: a copy of `process.env`, and a set of the
 * servers `net.Server#listen` was called on (every `http`/`https`/`net` server goes through it).
 * Child processes are not checked: shared services (the Temporal dev server, esbuild's service)
 * start lazily inside whichever file first needs them and rightly stay.
 */
import net from 'node:net';
import type http from 'node:http';

/** A server this process listened on, with where `listen` was called from (a few stack frames). */
interface Tracked {
  server: net.Server;
  where: string;
}

const servers = new Set<Tracked>();
let installed = false;

/** Tracks every server this process listens on from now on (idempotent). */
export function trackServers(): void {
  if (installed) return;
  installed = true;
  const listen = net.Server.prototype.listen;
  net.Server.prototype.listen = function (this: net.Server, ...args: unknown[]) {
    const where = (new Error().stack ?? '')
      .split('\n')
      .slice(2)
      .map((line) => line.trim().replace(/^at /, ''))
      .filter((line) => !line.includes('node:') && !line.includes('node_modules') && !line.includes('(<anonymous>)'))
      .slice(0, 4)
      .join(' < ');
    const tracked: Tracked = { server: this, where };
    servers.add(tracked);
    this.once('close', () => servers.delete(tracked));
    return (listen as (...a: unknown[]) => net.Server).apply(this, args);
  } as typeof listen;
}

/** What the process holds at one moment: its environment and the servers listening. */
export interface ProcessState {
  env: Record<string, string | undefined>;
  listening: Set<Tracked>;
}

/** The current {@link ProcessState}. */
export function processState(): ProcessState {
  return { env: { ...process.env }, listening: new Set([...servers].filter((t) => t.server.listening)) };
}

function describeAddress(server: net.Server): string {
  const a = server.address();
  return typeof a === 'string' ? a : a ? `${a.address}:${a.port}` : '(closed)';
}

/**
 * What changed since `before` that a test file must undo: each as one line. Restores the
 * environment and closes the servers it reports (so later files are not affected by them).
 */
export function undoLeaks(before: ProcessState): string[] {
  const leaks: string[] = [];
  for (const name of new Set([...Object.keys(before.env), ...Object.keys(process.env)])) {
    const was = before.env[name];
    const now = process.env[name];
    if (was === now) continue;
    leaks.push(
      was === undefined
        ? `process.env.${name} set and not removed`
        : now === undefined
          ? `process.env.${name} removed and not restored`
          : `process.env.${name} changed and not restored`,
    );
    if (was === undefined) delete process.env[name];
    else process.env[name] = was;
  }
  for (const t of servers) {
    if (!t.server.listening || before.listening.has(t)) continue;
    leaks.push(`a server still listening on ${describeAddress(t.server)}, started at ${t.where || '(unknown)'}`);
    t.server.close();
    (t.server as http.Server).closeAllConnections?.();
  }
  return leaks;
}

/**
 * Adds the check to every top-level suite under `root` (call from a root `beforeAll` hook, once
 * every file is loaded): after each suite's own `after` hooks, it fails the suite with the list
 * of {@link undoLeaks} since the previous suite's check (or since the run started).
 */
export function checkSuitesLeaveNothing(root: Mocha.Suite): void {
  trackServers();
  let baseline = processState();
  let since = 'the run started';
  for (const suite of root.suites) {
    suite.afterAll('leaves no changed process.env and no listening server (test/helpers/leaks.ts)', function () {
      const leaks = undoLeaks(baseline);
      const previous = since;
      baseline = processState();
      since = `"${suite.title}" ended`;
      if (leaks.length) {
        const file = suite.file ? ` (${suite.file})` : '';
        throw new Error(
          `"${suite.title}"${file} left behind (since ${previous}):\n  - ${leaks.join('\n  - ')}\nUndo every \`before\` in an \`after\`.`,
        );
      }
    });
  }
}
