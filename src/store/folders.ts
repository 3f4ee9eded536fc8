/**
 * Folder paths of test cases: slash-separated names such as `users/admin`; '' is the top level.
 * A folder selects itself and every folder below it.
 */

/** Trims surrounding slashes and spaces and collapses repeated slashes: ` /a//b/ ` → `a/b`. */
export function normaliseFolder(folder: string): string {
  return folder
    .split('/')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .join('/');
}

/** SQL condition (with parameters) selecting `folder` and its subfolders on column `column`. */
export function folderCondition(column: string, folder: string, param = 'folder'): { sql: string; params: Record<string, string> } {
  const f = normaliseFolder(folder);
  if (f === '') return { sql: '1=1', params: {} };
  // '!' as the LIKE escape: a backslash is read differently by MySQL and SQLite string literals.
  const escaped = f.replace(/[!%_]/g, (c) => `!${c}`);
  return {
    sql: `(${column} = :${param} OR ${column} LIKE :${param}Prefix ESCAPE '!')`,
    params: { [param]: f, [`${param}Prefix`]: `${escaped}/%` },
  };
}
