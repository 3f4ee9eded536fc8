/**
 * The contract tests `assay import openapi` makes from a description (cli/importers/openapi.ts),
 * checked against the mocks `POST /v1/designs/import` makes from the same description
 * (src/mock/openapi.ts), in process: each test case's assertions are evaluated as a run evaluates
 * them (src/domain/assertions.ts `evaluateAssertion`) on the response the mock engine answers by
 * default (the lowest 2xx status, its first response; src/mock/engine.ts). Used by
 * test/unit/openapi-mock-conformance.test.ts and bench/openapi-contract.ts; the end-to-end path
 * (HTTP, Temporal, the CLI) is test/integration/cli/import-openapi.test.ts's.
 */
import path from 'node:path';
import { contractTestsFromOpenApi } from '../../cli/importers/openapi';
import { evaluateAssertion, type AssertionContext } from '../../src/domain/assertions';
import type { FlowNode } from '../../src/domain/types';
import { designsFromOpenApi, parseOpenApi } from '../../src/mock/openapi';
import { parsePath } from '../../src/mock/paths';

/** The public descriptions kept as fixtures (test/fixtures/openapi/public/SOURCES.md). */
export const OPENAPI_FIXTURES = path.resolve(__dirname, '../../../test/fixtures/openapi/public');

/** One contract test that failed against the mock. */
export interface ContractFailure {
  operation: string;
  /** The failed assertions' messages. */
  why: string[];
  /** The import's warning about this operation's success response, when it gave one. */
  explainedBy?: string;
}

/** The outcome for one description. */
export interface ContractOutcome {
  title: string;
  /** Contract tests made (operations with a documented success response). */
  operations: number;
  passed: number;
  failures: ContractFailure[];
  /** The mock import's warnings (`{operation, reason}`). */
  warnings: Array<{ operation: string; reason: string }>;
  /** Milliseconds the mock import (parse, designs, samples) took. */
  importMs: number;
}

/** Imports `text` (an OpenAPI 3.x document) both ways and runs each contract test against its mock. */
export async function contractAgainstMocks(text: string): Promise<ContractOutcome> {
  const started = performance.now();
  const doc = parseOpenApi(text);
  const mocks = designsFromOpenApi(doc);
  const importMs = performance.now() - started;
  const plan = contractTestsFromOpenApi(parseOpenApi(text));
  const designs = new Map(
    mocks.designs.map((d) => [`${d.method} ${(parsePath(d.path) as { routeKey: string }).routeKey}`, d]),
  );
  const outcome: ContractOutcome = {
    title: plan.title,
    operations: plan.testCases.length,
    passed: 0,
    failures: [],
    warnings: mocks.warnings,
    importMs,
  };
  for (const tc of plan.testCases) {
    const [method, rawPath] = [
      tc.operation.slice(0, tc.operation.indexOf(' ')),
      tc.operation.slice(tc.operation.indexOf(' ') + 1),
    ];
    // A fragment (`/files/{id}#get_shared_link`) is never sent: the request reaches the path before it.
    const parsed = parsePath(rawPath.split('#')[0]!);
    const design = 'error' in parsed ? undefined : designs.get(`${method} ${parsed.routeKey}`);
    if (!design) {
      const reason = mocks.skipped.find((s) => s.operation === tc.operation)?.reason;
      outcome.failures.push({ operation: tc.operation, why: ['no mock design'], explainedBy: reason });
      continue;
    }
    const statuses = [...new Set(design.responses.map((r) => r.status))].sort((a, b) => a - b);
    const status = statuses.find((s) => s >= 200 && s < 300) ?? statuses[0]!;
    const response = design.responses.find((r) => r.status === status)!;
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
    for (const [k, v] of Object.entries(response.headers ?? {})) headers[k.toLowerCase()] = v;
    const json = /json/i.test(headers['content-type']!);
    const body =
      status === 204 || status === 205 || status === 304
        ? ''
        : json || typeof response.data !== 'string'
          ? JSON.parse(JSON.stringify(response.data ?? null))
          : response.data;
    const context: AssertionContext = {
      request: { method, url: 'http://mock/', headers: {} },
      response: { status, headers, body, time: 1, size: 0 },
      variables: {},
      nodes: {},
    } as unknown as AssertionContext;
    const node = tc.body.flow[0] as Extract<FlowNode, { type: 'api' }>;
    const why: string[] = [];
    for (const assertion of node.assertions ?? []) {
      const result = await evaluateAssertion(assertion, context);
      if (!result.passed) why.push(`${assertion.name}: ${result.message ?? 'failed'}`);
    }
    if (why.length === 0) outcome.passed++;
    else {
      const reason =
        mocks.skipped.find((s) => s.operation === tc.operation)?.reason ??
        mocks.warnings.find((w) => w.operation === `${method.toUpperCase()} ${rawPath} ${status}`)?.reason;
      outcome.failures.push({ operation: tc.operation, why, explainedBy: reason });
    }
  }
  return outcome;
}
