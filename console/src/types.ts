/**
 * The shapes of the API documents the console reads (docs/api.md). Mirrors of the server's types
 * (src/domain/types.ts), kept loose: the console shows what is there.
 */

/** `GET /v1/runs/{id}` and the items of `GET /v1/runs`. */
export interface Run {
  runId: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  runner: string;
  environment: string;
  trigger: 'api' | 'schedule' | 'webhook';
  deploymentId?: string;
  timeout?: number;
  variables?: Record<string, unknown>;
  createdAt: string;
  startedAt?: string;
  completedAt?: string;
  estimatedCompletion?: string;
  progress?: { completed: number; total: number; percentage: number };
  result?: string;
  summary?: { total: number; passed: number; failed: number; skipped: number };
  duration?: number;
  error?: string;
  kind?: string;
  performance?: LivePerformance & Partial<PerformanceResults>;
  links?: { self: string; results: string; temporal?: string };
}

/** A run still to end: `queued` or `running` (docs/api.md "Runs"). */
export function isActive(run: { status: string }): boolean {
  return run.status === 'queued' || run.status === 'running';
}

/** Live figures of a running performance run (docs/performance.md "Results"). */
export interface LivePerformance {
  elapsedMs?: number;
  durationMs?: number;
  percent?: number;
  activeVUs?: number;
  requestsPerSecond?: number;
  p95ResponseTime?: number;
  errorRate?: number;
  requests?: number;
}

/** Final figures of a performance run. */
export interface PerformanceResults {
  avgResponseTime: number;
  p95ResponseTime: number;
  p99ResponseTime: number;
  errorRate: number;
  requestsPerSecond: number;
  minResponseTime?: number;
  medResponseTime?: number;
  p90ResponseTime?: number;
  maxResponseTime?: number;
  requests?: number;
  failedRequests?: number;
  iterations?: number;
  peakVUs?: number;
  checks?: { total: number; passed: number; rate: number };
  thresholds?: { metric: string; threshold: string; passed: boolean; actual?: number }[];
  series?: { t: number; requests: number; failed: number; p95: number | null; vus: number }[];
  seriesResolution?: number;
}

export interface AssertionResult {
  name?: string;
  target: string;
  operator: string;
  expected?: unknown;
  actual?: unknown;
  passed: boolean;
  message?: string;
}

export interface NodeResult {
  id: string;
  name?: string;
  type: string;
  status: 'passed' | 'failed' | 'skipped';
  duration: number;
  error?: string;
  reason?: string;
  request?: { method: string; url: string };
  response?: { status?: number; timeMs: number; size: number; truncated: boolean };
  assertions?: AssertionResult[];
  attempts?: { attempt?: number; error?: string; status?: number; timeMs?: number }[];
  logs?: { level: string; message: string }[];
  line?: number;
  condition?: unknown;
  branch?: string;
  children?: NodeResult[];
  iterations?: number;
  stoppedBy?: string;
  iterationResults?: { index: number; item?: unknown; status: string; nodes: NodeResult[] }[];
  omittedIterations?: number;
  variablesSet?: Record<string, unknown>;
  waitedMs?: number;
}

export interface TestCaseResult {
  testCaseId: string;
  name: string;
  status: string;
  duration: number;
  assertions: number;
  passedAssertions: number;
  failures: { node: string; assertion?: string; operator?: string; expected?: unknown; actual?: unknown; message: string }[];
  nodes: NodeResult[];
  error?: string;
}

/** `GET /v1/runs/{id}/results`. */
export interface RunResults {
  runId: string;
  status: string;
  result?: string;
  summary?: Run['summary'];
  duration?: number;
  error?: string;
  details: { testCases: TestCaseResult[] };
  performance?: PerformanceResults;
}

export interface Runner {
  name: string;
  description?: string;
  testCaseIds?: string[];
  folder?: string;
  tags?: string[];
  order?: string;
  loadProfile?: unknown;
}

export interface Environment {
  name: string;
  description?: string;
  variables: Record<string, unknown>;
}
