/**
 * Types shared by the API's middleware and routers.
 */
import type { ParameterizedContext } from 'koa';
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import type { AssayConfig } from '../src/config';
import type { KeyScope } from '../src/store/entities';
import type { RunWorkflowClient } from '../src/temporal/run-workflows';
import type { ScheduleSync } from '../src/temporal/schedules';
import type { MockEngine } from '../src/mock/engine';

/** What every router needs, given once when the app is built. */
export interface ApiDeps {
  config: AssayConfig;
  dataSource: DataSource;
  /** The run workflows on Temporal (start, describe, cancel, Web UI links). */
  workflows: RunWorkflowClient;
  schedules: ScheduleSync;
  mocks: MockEngine;
  logger: Logger;
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
}

export type AppContext = ParameterizedContext<AppState>;
