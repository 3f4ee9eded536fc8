/**
 * Small pieces every router uses: names, timestamps, and the 409 on a taken name (paging:
 * api/paging.ts; lookups: api/lookups.ts).
 */
import { isUniqueViolation } from '../../src/store/errors';
import { Problem } from '../problem';

/** Names of environments and runners: they appear in URLs, so no slashes or spaces. */
export const NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$';
export const nameSchema = { type: 'string', pattern: NAME_PATTERN } as const;

/** Variables: names to strings, numbers or booleans (spec "Run creation input"). */
export const variablesSchema = {
  type: 'object',
  maxProperties: 1000,
  propertyNames: { minLength: 1, maxLength: 200 },
  additionalProperties: { type: ['string', 'number', 'boolean'] },
} as const;

/** ISO 8601 UTC with milliseconds, or undefined. */
export function iso(date: Date | null | undefined): string | undefined {
  return date ? date.toISOString() : undefined;
}

/** Runs `write`; a unique-key violation becomes 409 name-taken about `what`. */
export async function uniqueName<T>(what: string, name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new Problem('name-taken', `${what} "${name}" already exists in this workspace.`, {
        errors: [{ field: 'name', pointer: '#/name', detail: 'is already taken' }],
      });
    }
    throw err;
  }
}
