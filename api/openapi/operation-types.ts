/**
 * The shapes of the API document's operations (api/openapi/operations.ts lists them; the
 * people and change operations live in files of their own).
 */
import type { JsonSchema, ProblemResponseName } from './components';
import type { Example, ResponseExampleName } from './examples';

/** HTTP methods the document uses (lower case, as OpenAPI path items key them). */
export type OperationMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A query parameter of an operation. */
export interface QueryParam {
  name: string;
  description: string;
  schema: JsonSchema;
}

/** A successful answer of an operation. */
export interface SuccessResponse {
  description: string;
  /** The JSON body's schema; none for 204. */
  schema?: JsonSchema;
  /** Examples of the body, by name (api/openapi/examples.ts). */
  examples?: ResponseExampleName[];
  /** Response headers the answer carries, by name, with a description. */
  headers?: Record<string, string>;
  /** The body's media type when it is not `application/json` (`*\/*`: the type the content has). */
  mediaType?: string;
}

/** How a call authenticates: the API key (scope from api/scopes.ts), the incoming webhook's credentials, or nothing. */
export type OperationAuth = 'apiKey' | 'webhook' | 'none';

/** One operation of the document. */
export interface ApiOperation {
  method: OperationMethod;
  /** The route's path in the routers' syntax: `/v1/runs/:runId`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  auth: OperationAuth;
  /** The request body: the very schema object the route validates with. */
  body?: {
    schema: JsonSchema;
    required: boolean;
    description?: string;
    examples?: Record<string, Example>;
    /** Media types taken besides `application/json`, with their schemas. */
    alsoAs?: Record<string, JsonSchema>;
    /** The media type instead of `application/json` (`*\/*`: any, as for file content). */
    mediaType?: string;
  };
  query?: QueryParam[];
  /** Request headers the operation reads (besides `Authorization` and `Idempotency-Key`). */
  headers?: QueryParam[];
  /** `Idempotency-Key` is read (run starts). */
  idempotent?: boolean;
  /** Successful answers by status code. */
  responses: Record<string, SuccessResponse>;
  /** Problem answers (beyond 401/403/429/503 that every /v1 call may get). */
  problems: ProblemResponseName[];
}
