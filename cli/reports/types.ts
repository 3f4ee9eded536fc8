/**
 * The documents the `assay` command line reads from the API and the reporters turn into files
 * (docs/api.md "Runs"): the run (`GET /v1/runs/{runId}`) and its results
 * (`GET /v1/runs/{runId}/results`). Types only, shared by cli/ and cli/reports.
 */
import type { RunProgress, RunResultValue, RunStatus, RunSummary, TestCaseResult } from '../../src/domain/types';
import type { PerformanceResults } from '../../src/perf/metrics';

/** `GET /v1/runs/{runId}` (spec "Run"; docs/api.md "Watch"). Durations in ms, times ISO 8601 UTC. */
export interface RunDocument {
  runId: string;
  status: RunStatus;
  runner: string;
  environment: string;
  trigger?: string;
  timeout?: number;
  variables?: Record<string, unknown>;
  createdAt: string;
  startedAt?: string;
  estimatedCompletion?: string;
  progress?: RunProgress;
  result?: RunResultValue;
  summary?: RunSummary;
  duration?: number;
  completedAt?: string;
  error?: string;
  /** Live figures of a performance run while it runs. */
  performance?: Record<string, unknown>;
  links?: { self?: string; results?: string; temporal?: string };
}

/** `GET /v1/runs/{runId}/results` (spec "Endpoints"; docs/api.md "Results"). */
export interface ResultsDocument {
  runId: string;
  status: RunStatus;
  runner: string;
  environment: string;
  result?: RunResultValue;
  summary?: RunSummary;
  /** Milliseconds. */
  duration?: number;
  completedAt?: string;
  startedAt?: string;
  createdAt?: string;
  error?: string;
  details: { testCases: TestCaseResult[] };
  performance?: PerformanceResults;
}

/** Where a person looks at the run: the console page and the Temporal Web UI. */
export interface RunLinks {
  console?: string;
  temporal?: string;
  results?: string;
}

/** Reporter names of `--reporter` (docs/cli.md "Reports"). */
export const REPORTERS = ['cli', 'json', 'junit', 'html'] as const;
export type ReporterName = (typeof REPORTERS)[number];
