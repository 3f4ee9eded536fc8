/**
 * Small pieces every router uses: names, timestamps, list envelopes, and the 409 on a taken name.
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

/** Default and largest page size of list operations (docs/spec-choices.md). */
export const PAGE = { default: 50, max: 200 } as const;

/** ISO 8601 UTC with milliseconds, or undefined. */
export function iso(date: Date | null | undefined): string | undefined {
  return date ? date.toISOString() : undefined;
}

/** A page of a list: `items` and the cursor of the next page (null on the last). */
export function page<T>(items: T[], nextCursor: string | null): { items: T[]; nextCursor: string | null } {
  return { items, nextCursor };
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
