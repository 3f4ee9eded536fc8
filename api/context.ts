/**
 * Types shared by the API's middleware and routers.
 */
import type { ParameterizedContext } from 'koa';
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import type { AssayConfig } from '../src/config';
import type { KeyScope } from '../src/store/entities';
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

/** Who is calling: set by the auth middleware on every /v1 request. */
export interface Caller {
  workspaceId: string;
  keyId: string;
  scope: KeyScope;
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
