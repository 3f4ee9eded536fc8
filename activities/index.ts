/**
 * Every activity the worker registers, built from the worker's dependencies. Workflows import only
 * the type ({@link Activities}), never this code.
 */
import type { DataSource } from 'typeorm';
import type { AssayConfig } from '../src/config';
import { sendHttpRequest } from './http';
import { createRunActivities } from './runs';

export function createActivities(deps: { dataSource: DataSource; config: AssayConfig }) {
  return {
    sendHttpRequest,
    ...createRunActivities(deps.dataSource, deps.config),
  };
}

export type Activities = ReturnType<typeof createActivities>;
export type { RecordTestCaseInput, FinishRunInput } from './runs';
