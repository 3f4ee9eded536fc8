/**
 * Types shared by the API's middleware and routers.
 */
import type { ParameterizedContext } from 'koa';
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import type { AssayConfig } from '../src/config';
import type { AuditActor } from '../src/store/entities';
import type { Scope } from '../src/teams/roles';
import type { LiveRun, RunWorkflowClient } from '../src/temporal/run-workflows';
import type { ScheduleSync } from '../src/temporal/schedules';
import type { MockJournal } from '../src/mock/journal';
import type { MockEngine } from '../src/mock/engine';
import type { AddressPolicy } from '../src/net/address-policy';

/** What every router needs, given once when the app is built. */
export interface ApiDeps {
  config: AssayConfig;
  dataSource: DataSource;
  /** The run workflows on Temporal (start, describe, cancel, Web UI links). */
  workflows: RunWorkflowClient;
  schedules: ScheduleSync;
  mocks: MockEngine;
  /** The mock journal stage (src/mock/journal.ts): its buffer is flushed before a journal listing; absent in some tests. */
  journal?: MockJournal;
  logger: Logger;
  /**
   * The address policy of the API process's own outgoing requests (the console's relay,
   * api/routes/relay.ts, sends as an API node: kind `node`). bin/processes.ts `startApi` makes it
   * from the configuration and closes it; when absent the relay makes its own the same way.
   */
  policy?: AddressPolicy;
}

/**
 * Who is calling: set by the auth middleware on every /v1 request (api/auth.ts), from an API key or
 * a console session (docs/teams.md).
 */
export interface Caller {
  workspaceId: string;
  /** The API key that authenticated the request, or null for a console session. */
  keyId: string | null;
  /** The user behind the request (a session's, or the owner of a user's key), or null. */
  userId: string | null;
  /** What the caller may do here (src/teams/roles.ts): a key's scope, a user's role's scope, or the lower of both. */
  scope: Scope;
  /** Who the caller is, as the audit trail records it. */
  actor: AuditActor;
  /** What per-caller limits count against: the key id, else `user:<id>`. */
  principal: string;
}

export interface AppState {
  caller: Caller;
  requestId: string;
  /** On /codec/* only: the caller is the codec server's operator credential (api/routes/codec.ts), not a key. */
  codecOperator?: boolean;
  /**
   * On `GET /v1/runs/{runId}` only: the run's live state from its workflow, looked up once (early
   * when the store is slow: api/routes/runs.ts `liveRunLookup`), for answering while the store
   * does not.
   */
  liveRun?: { runId: string; lookup: () => Promise<LiveRun | null> };
}

export type AppContext = ParameterizedContext<AppState>;
