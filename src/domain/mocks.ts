/**
 * Shapes of the mock service's behaviour beyond static answers (docs/mocks.md): state (data
 * collections and scopes), contract validation, latency and faults, the journal, the validation
 * and recording proxy. The engine that uses them is src/mock/engine.ts; these are the shapes the
 * store, the API and the flows share.
 */

/** The request header naming a mock scope; a run's API nodes send it to the workspace's mocks with the run id. */
export const MOCK_SCOPE_HEADER = 'x-assay-mock-scope';

/**
 * Header names that may carry secrets (any part of the name, case-insensitive): the journal keeps
 * their values as `***`, and the recording proxy never records them (docs/mocks.md).
 */
export const SECRET_HEADER_NAME = /auth|cookie|key|password|secret|session|token/i;

/** What a scope name may be: the run ids (`run_…`) and anything a user picks within these characters. */
export const MOCK_SCOPE_PATTERN = /^[A-Za-z0-9_.:-]{1,100}$/;

/**
 * A latency distribution, in WireMock's shapes ("Simulating faults": `fixed`, `uniform`,
 * `lognormal`), milliseconds. `lognormal` is WireMock's: `median` and `sigma` of the underlying
 * normal's log, capped by `maxValue` (default 60,000).
 */
export type MockDelay =
  | { type: 'fixed'; milliseconds: number }
  | { type: 'uniform'; lower: number; upper: number }
  | { type: 'lognormal'; median: number; sigma: number; maxValue?: number };

/**
 * Faults, after WireMock's (`CONNECTION_RESET_BY_PEER`, `EMPTY_RESPONSE`,
 * `MALFORMED_RESPONSE_CHUNK`, `RANDOM_DATA_THEN_CLOSE`), plus `status`: an HTTP answer with
 * `status` (default 503) and a problem body.
 */
export type MockFault = 'connection-reset' | 'empty-response' | 'malformed-chunk' | 'random-data' | 'status';
export const MOCK_FAULTS: readonly MockFault[] = [
  'connection-reset',
  'empty-response',
  'malformed-chunk',
  'random-data',
  'status',
];

/** One fault a design injects with a probability (0 to 1), drawn from the design's seeded source. */
export interface MockFaultRule {
  fault: MockFault;
  probability: number;
  /** For `status`: the status answered (500–599, default 503). */
  status?: number;
}

/** A parameter of the request a design validates (from OpenAPI `parameters`). */
export interface MockParameter {
  in: 'path' | 'query' | 'header';
  name: string;
  required?: boolean;
  schema?: object;
}

/**
 * The design's options beyond the spec's fields (the `options` column of `api_designs`; top-level
 * fields of the design document).
 */
export interface MockDesignOptions {
  /** Answer 422 `mock-request-invalid` to a request breaking `requestSchema`/`parameters` (default true). */
  validateRequests?: boolean;
  /**
   * Whether a request must carry a body when the design has a `requestSchema` (OpenAPI's
   * `requestBody.required`); unset: required for POST, PUT and PATCH (src/mock/contract.ts).
   */
  requestBodyRequired?: boolean;
  /** Refuse (at save) a response whose data breaks its own schema (default false). */
  validateResponses?: boolean;
  /** Parameters checked by request validation (OpenAPI import fills them). */
  parameters?: MockParameter[];
  /** Latency added to every answer of the design (a response's own `delay`/`delayMs` replaces it). */
  delay?: MockDelay;
  /** Faults drawn per request. */
  faults?: MockFaultRule[];
  /** Seed of the design's random source (faults, delays, the random response); default from the workspace settings. */
  seed?: number;
}

/**
 * A response that reads and writes a data collection (docs/mocks.md "State"): `id` (a template,
 * `{{productId}}`) names the record; `update` (JSONata; sees `record`, `request`) gives the record's
 * new value, written atomically with the answer; `body` (JSONata; sees `record` after the update,
 * `before`, `request`, and `records` when there is no `id`) gives the response body.
 */
export interface MockStateAction {
  collection: string;
  id?: string;
  update?: string;
  body?: string;
}

/** The request as state expressions and `mockVerify` `where` see it. */
export interface MockRequestView {
  method: string;
  path: string;
  params: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** Parsed JSON when the body is JSON, else the text; undefined when empty. */
  body?: unknown;
}

/** A contract violation (request or response), as 422 answers and the journal list them. */
export interface MockViolation {
  /** Where: the request's `body`, `query`, `header`, `path`, or the upstream `response` (validation proxy). */
  in: 'body' | 'query' | 'header' | 'path' | 'response';
  /** JSON Pointer in the body, or the parameter's name. */
  field: string;
  message: string;
}

/** A journal entry (`GET /v1/designs/{id}/requests`, `GET /v1/mock-requests`). */
export interface MockJournalEntryView {
  id: string;
  designId: string | null;
  collectionId: string | null;
  scope: string | null;
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body?: unknown;
  status: number;
  fault: MockFault | null;
  delayMs: number;
  violations: MockViolation[];
  source: 'mock' | 'proxy';
  receivedAt: string;
}

/** The workspace's mock settings (`GET/PUT /v1/mock-settings`). */
export interface MockSettingsView {
  /** Forward every mock request to `url`: `validate` reports contract violations, `record` records answers as designs. */
  proxy: { url: string; mode: 'validate' | 'record' } | null;
  /** Seed of designs without their own. */
  seed: number | null;
}
