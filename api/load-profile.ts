/**
 * Load profiles in request bodies (docs/performance.md): `performance` on `POST /v1/runs`,
 * `loadProfile` on runners and deployments. Checked field by field (src/perf/profile.ts); a bad
 * field is a 400 `validation-failed` naming it under its body field (`performance.stages[1].duration`).
 * A run's profile must also fit its timeout: refused naming both (`timeout`).
 */
import { fieldError } from '../src/problems';
import { timeoutProblem, validateProfile, type LoadProfileInput } from '../src/perf/profile';
import { invalid } from './problem';

/** The JSON Schema of a load profile field: an object (or null to clear it), checked by {@link checkedProfile}. */
export const loadProfileSchema = { type: ['object', 'null'] } as const;

/**
 * The profile given in body field `field`, as given (stored so), or null/undefined as given.
 * @throws Problem 400 `validation-failed` with every field at fault; with `timeoutSeconds`, also when
 *   the profile cannot finish within it (the error names `timeout`).
 */
export function checkedProfile(
  value: LoadProfileInput | null | undefined,
  field: string,
  timeoutSeconds?: number,
): LoadProfileInput | null | undefined {
  if (value === undefined || value === null) return value;
  const { profile, issues } = validateProfile(value);
  if (!profile) throw invalid(issues.map((i) => fieldError([field, ...i.path], i.message)));
  if (timeoutSeconds !== undefined) {
    const tooLong = timeoutProblem(profile, timeoutSeconds);
    if (tooLong) throw invalid([fieldError(['timeout'], `${tooLong} (${field})`)]);
  }
  return value;
}
