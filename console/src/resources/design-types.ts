/**
 * The API design document as the console reads it (docs/mocks.md): shared by the design pages
 * (designs.tsx) and the design's mock tabs (design-mock.tsx).
 */
import type { MockResponse } from '../../../src/domain/types';
import type { MockDesignOptions } from '../../../src/domain/mocks';

/** A design as `GET /v1/designs/{id}` answers it: the spec's fields, then the mock options (src/domain/mocks.ts). */
export interface Design extends MockDesignOptions {
  id: string;
  method: string;
  path: string;
  name?: string;
  description?: string;
  requestSchema?: unknown;
  responseSchemas?: Record<string, unknown>;
  responses: MockResponse[];
  mockUrl: string | null;
  createdAt: string;
  updatedAt: string;
}
