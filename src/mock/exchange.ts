/**
 * One request to the mock service as the engine's stages see it (src/mock/engine.ts), and the
 * stages' interfaces: the engine finds the route and the response; the stages add state
 * (src/mock/state.ts), contract validation (src/mock/contract.ts), latency and faults
 * (src/mock/chaos.ts), the journal (src/mock/journal.ts) and the proxy (src/mock/proxy.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MockFault, MockRequestView, MockViolation } from '../domain/mocks';

/** The most of a request body the mock service reads (larger: 413 `mock-body-too-large`). */
export const MOCK_BODY_MAX_BYTES = 1024 * 1024;

export interface MockExchange {
  workspaceId: string;
  /** From `X-Assay-Mock-Scope` or the `/~{scope}` path segment; null for the shared state. */
  scope: string | null;
  method: string;
  /** The path within the workspace (without `/mock/{ws}` and the scope segment). */
  path: string;
  /** The query string without `?` ('' when none). */
  rawQuery: string;
  req: IncomingMessage;
  res: ServerResponse;
  /** `Date.now()` when the request arrived. */
  startedAt: number;
  /** The body, once read ({@link readBody}); undefined before. */
  body?: Buffer;
  /** Set by the stages as they decide; the journal records them. */
  designId?: string | null;
  collectionId?: string | null;
  violations?: MockViolation[];
  fault?: MockFault | null;
  delayMs?: number;
  source?: 'mock' | 'proxy';
  /** An answer a stage prepared (the CRUD and state stages) for the engine to send after the journal has the exchange. */
  send?: () => void;
}

/** True when the request announces a body (so GETs without one are never waited for). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** Error thrown by {@link readBody} past {@link MOCK_BODY_MAX_BYTES}. */
export class MockBodyTooLarge extends Error {}

/** Reads the body once (empty when none is announced); throws {@link MockBodyTooLarge}. */
export async function readBody(ex: MockExchange): Promise<Buffer> {
  if (ex.body) return ex.body;
  if (!hasBody(ex.req)) return (ex.body = Buffer.alloc(0));
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ex.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MOCK_BODY_MAX_BYTES) throw new MockBodyTooLarge();
    chunks.push(chunk);
  }
  return (ex.body = Buffer.concat(chunks));
}

/** The request as expressions see it (state responses, `mockVerify`'s `where`); the body must have been read. */
export function requestView(ex: MockExchange, params: Record<string, string>): MockRequestView {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(ex.req.headers))
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  return {
    method: ex.method,
    path: ex.path,
    params,
    query: Object.fromEntries(new URLSearchParams(ex.rawQuery)),
    headers,
    body: parseBody(ex.body, headers['content-type']),
  };
}

/** JSON when it parses as JSON, else the text; undefined when empty. */
export function parseBody(body: Buffer | undefined, _contentType?: string): unknown {
  if (!body || body.length === 0) return undefined;
  const text = body.toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
