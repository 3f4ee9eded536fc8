/**
 * Liveness and readiness (docs/operations.md "Health and Kubernetes probes").
 *
 * - `GET /healthz`: the process lives and answers HTTP: 200 `{"status":"ok"}`, no dependency is
 *   checked (a liveness probe must not restart a process because its database is down).
 * - `GET /readyz`: the dependencies the service needs answer: 200
 *   `{"status":"ok","checks":{"store":"ok","temporal":"ok"}}`, else 503 problem+json `not-ready`
 *   whose `unavailable` lists the checks that failed (`store`, `temporal`) and `checks` gives each
 *   one's state (`ok` or the reason).
 *
 * Which checks a service has: the API and a worker `store` and `temporal`; the bundler `store`.
 * Each check gets {@link CHECK_TIMEOUT_MS}; they run at once, so a probe answers within that.
 */
import type { DataSource } from 'typeorm';
import { problemDocument } from '../problems';
import type { DatabaseTimeouts } from '../config';
import { withStoreBounds } from '../store/bounds';

/** Time a readiness check may take before it counts as failed, ms. */
export const CHECK_TIMEOUT_MS = 2000;

/** A readiness check: resolves when the dependency answers, rejects (with the reason) when not. */
export type ReadinessCheck = () => Promise<unknown>;

/** What {@link readiness} found. */
export interface Readiness {
  ready: boolean;
  /** Each check's state: `ok`, or why it failed. */
  checks: Record<string, string>;
  /** The checks that failed, in the order given. */
  unavailable: string[];
}

/** Words for the checks in a problem's `detail`. */
const NAMES: Record<string, string> = { store: 'the store (database)', temporal: 'Temporal' };

/** Rejects after `ms` with a timeout reason; `fn`'s own rejection wins if it comes first. */
async function within<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  try {
    return await Promise.race([Promise.resolve().then(fn), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs every check at once, each within `timeoutMs`. */
export async function readiness(
  checks: Record<string, ReadinessCheck>,
  timeoutMs = CHECK_TIMEOUT_MS,
): Promise<Readiness> {
  const names = Object.keys(checks);
  const results = await Promise.allSettled(names.map((name) => within(timeoutMs, checks[name]!)));
  const out: Readiness = { ready: true, checks: {}, unavailable: [] };
  results.forEach((r, i) => {
    const name = names[i]!;
    if (r.status === 'fulfilled') {
      out.checks[name] = 'ok';
    } else {
      out.ready = false;
      out.unavailable.push(name);
      const reason = r.reason instanceof Error ? r.reason.message : String(r.reason);
      out.checks[name] = `unreachable: ${reason.split('\n')[0]!.slice(0, 300)}`;
    }
  });
  return out;
}

/**
 * The answer of `GET /readyz` for `state`: status, content type and body (200 JSON, or 503
 * problem+json `not-ready` naming what is unavailable).
 */
export function readinessAnswer(state: Readiness): {
  status: number;
  contentType: string;
  body: Record<string, unknown>;
} {
  if (state.ready)
    return {
      status: 200,
      contentType: 'application/json; charset=utf-8',
      body: { status: 'ok', checks: state.checks },
    };
  const named = state.unavailable.map((n) => NAMES[n] ?? n);
  const body = problemDocument(
    'not-ready',
    `Not ready: ${named.join(' and ')} ${named.length === 1 ? 'is' : 'are'} not reachable.`,
    {
      unavailable: state.unavailable,
      checks: state.checks,
    },
  );
  return { status: body.status as number, contentType: 'application/problem+json; charset=utf-8', body };
}

/**
 * The `store` check: `SELECT 1` on the process's data source within `timeouts` (src/store/bounds.ts),
 * so that a probe's hung statement does not keep a pool connection. The API passes its requests'
 * bounds (`config.databaseTimeouts`): its `/readyz` then says `store` is unreachable exactly when
 * its requests are answered 503 `database-unavailable`.
 */
export function storeCheck(dataSource: DataSource, timeouts: DatabaseTimeouts): ReadinessCheck {
  return async () => {
    if (!dataSource.isInitialized) throw new Error('the data source is closed');
    await withStoreBounds(timeouts, () => dataSource.query('SELECT 1'));
  };
}

/** What a Temporal connection offers a check: the client's `Connection` and the worker's `NativeConnection` both do. */
export interface TemporalConnectionLike {
  withDeadline<R>(deadline: number, fn: () => Promise<R>): Promise<R>;
  workflowService: { getSystemInfo(request: Record<string, never>): Promise<unknown> };
}

/** Resolves when Temporal answers `GetSystemInfo` on `connection` within `ms` (the `temporal` check); @throws when it does not. */
export async function pingTemporal(connection: TemporalConnectionLike, ms: number): Promise<void> {
  await connection.withDeadline(Date.now() + ms, () => connection.workflowService.getSystemInfo({}));
}

/** The answer of `GET /healthz`. */
export const LIVE_BODY = { status: 'ok' } as const;
