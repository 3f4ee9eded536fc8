/**
 * The OpenAPI operations of the audit trail and of resource versions (api/routes/audit.ts,
 * api/routes/versions.ts, docs/teams.md).
 */
import type { AssayConfig } from '../../src/config';
import type { ApiOperation } from './operation-types';

/** Operations of /v1/audit and the `/versions` of versioned resources. */
export function changeOperations(_config: AssayConfig): ApiOperation[] {
  return [];
}
