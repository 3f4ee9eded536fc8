/**
 * Folder paths of test cases: slash-separated names such as `users/admin`; '' is the top level.
 * A folder selects itself and every folder below it (the store's query: src/store/folders.ts).
 */

/** Trims surrounding slashes and spaces and collapses repeated slashes: ` /a//b/ ` → `a/b`. */
export function normaliseFolder(folder: string): string {
  return folder
    .split('/')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .join('/');
}
