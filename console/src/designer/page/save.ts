/**
 * Saving the designer's document (docs/console.md "The designer"; docs/api.md "Test cases"):
 * `POST /v1/test-cases` for a new test case, else `PUT /v1/test-cases/{id}` of the WHOLE document
 * (PUT replaces the record: a field left out would be cleared) with `If-Match: "<version>"`, so a
 * save over someone else's newer save is refused with 409 `test-case-changed` instead of silently
 * overwriting it. "Overwrite" sends the PUT without the precondition.
 */
import { api, ApiError } from '../../api';
import { toRequestBody, type TestCaseDoc } from '../model/doc';

/** The test case as the API answers it. */
export type SavedTestCase = Record<string, unknown> & { id: string; version?: number | string; updatedAt?: string };

/** Why a save was refused because the stored test case changed meanwhile. */
export class SaveConflict extends Error {
  constructor(
    readonly version: number | string | undefined,
    readonly updatedAt: string | undefined,
  ) {
    super('The test case was changed meanwhile');
  }
}

/**
 * Saves `doc`: creates it when `id` is undefined, else replaces test case `id`, on the condition
 * that its stored version is still `version` (unless `overwrite`).
 * @throws SaveConflict on 409 `test-case-changed`; ApiError for every other refusal.
 */
export async function saveTestCase(
  doc: TestCaseDoc,
  id: string | undefined,
  version: number | string | undefined,
  overwrite = false,
): Promise<SavedTestCase> {
  const body = toRequestBody(doc);
  if (!id) return api<SavedTestCase>('POST', '/v1/test-cases', body);
  const headers: Record<string, string> = {};
  if (!overwrite && version !== undefined) headers['If-Match'] = `"${version}"`;
  try {
    return await api<SavedTestCase>('PUT', `/v1/test-cases/${encodeURIComponent(id)}`, body, { headers });
  } catch (err) {
    if (err instanceof ApiError && err.problem.status === 409 && err.problem.code === 'test-case-changed') {
      const p = err.problem as unknown as { version?: number | string; updatedAt?: string };
      throw new SaveConflict(p.version, p.updatedAt);
    }
    throw err;
  }
}
