/**
 * The query parameters of every paged listing (api/paging.ts: `limit` and `cursor`), for the
 * operations of api/openapi/operations.ts and of the people and change operations.
 */
import { PAGE } from '../paging';
import type { QueryParam } from './operation-types';

/** `limit` (1 to `max`, default `fallback`) and `cursor`. */
export const paging = (max: number = PAGE.max, fallback: number = PAGE.default): QueryParam[] => [
  {
    name: 'limit',
    description: `Items per page, 1 to ${max} (default ${fallback}).`,
    schema: { type: 'integer', minimum: 1, maximum: max, default: fallback },
  },
  {
    name: 'cursor',
    description: 'The `nextCursor` of the previous page (400 `bad-cursor` for anything else).',
    schema: { type: 'string' },
  },
];
