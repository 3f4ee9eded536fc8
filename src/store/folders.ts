/**
 * Folder paths of test cases in queries: a folder selects itself and every folder below it
 * (the paths themselves: src/domain/folders.ts).
 */
import { normaliseFolder } from '../domain/folders';

/** SQL condition (with parameters) selecting `folder` and its subfolders on column `column`. */
export function folderCondition(
  column: string,
  folder: string,
  param = 'folder',
): { sql: string; params: Record<string, string> } {
  const f = normaliseFolder(folder);
  if (f === '') return { sql: '1=1', params: {} };
  // '!' as the LIKE escape: a backslash is read differently by MySQL and SQLite string literals.
  const escaped = f.replace(/[!%_]/g, (c) => `!${c}`);
  return {
    sql: `(${column} = :${param} OR ${column} LIKE :${param}Prefix ESCAPE '!')`,
    params: { [param]: f, [`${param}Prefix`]: `${escaped}/%` },
  };
}
