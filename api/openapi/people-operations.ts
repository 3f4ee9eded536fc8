/**
 * The OpenAPI operations of people, members and API keys (api/routes/members.ts, api/routes/keys.ts,
 * docs/teams.md).
 */
import type { AssayConfig } from '../../src/config';
import type { ApiOperation } from './operation-types';

/** Operations of /v1/members and /v1/keys. */
export function peopleOperations(_config: AssayConfig): ApiOperation[] {
  return [];
}
