/**
 * Small pieces every router uses: names, timestamps, and the 409 on a taken name (paging:
 * api/paging.ts; lookups: api/lookups.ts).
 */
import { isUniqueViolation } from '../../src/store/errors';
import type { FieldError } from '../../src/problems';
import { invalid, Problem } from '../problem';

/** Names of environments and runners: they appear in URLs, so no slashes or spaces. */
export const NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$';
export const nameSchema = { type: 'string', pattern: NAME_PATTERN } as const;

/**
 * Variables: names to strings, numbers or booleans (spec "Run creation input"), or secrets
 * `{"value": …, "secret": true}` (docs/secrets.md). Objects pass the schema so that
 * api/secrets.ts `checkVariableInputs` can judge them with one clear message per field.
 */
export const variablesSchema = {
  type: 'object',
  maxProperties: 1000,
  propertyNames: { minLength: 1, maxLength: 200 },
  additionalProperties: { type: ['string', 'number', 'boolean', 'object'] },
} as const;

/** {@link variablesSchema} for a merge patch: `null` removes a variable. */
export const variablesPatchSchema = {
  ...variablesSchema,
  additionalProperties: { type: ['string', 'number', 'boolean', 'object', 'null'] },
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

/**
 * `validate(body)` (a {@link bodyValidator} of api/validation.ts) with the field errors of
 * `more(body)` (checks a schema cannot express) reported in the same 400 `validation-failed`.
 */
export function validatedWith<T>(
  validate: (body: unknown) => T,
  body: unknown,
  more: (body: unknown) => FieldError[],
): T {
  const extra = more(body);
  let value: T;
  try {
    value = validate(body);
  } catch (err) {
    if (err instanceof Problem && err.code === 'validation-failed' && extra.length)
      throw invalid([...(err.extras.errors ?? []), ...extra]);
    throw err;
  }
  if (extra.length) throw invalid(extra);
  return value;
}
