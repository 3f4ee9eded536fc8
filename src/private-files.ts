/**
 * Assay's local state is private to the user running it (docs/security.md
 * "Secrets at rest and in answers"): the data folder (`ASSAY_DATA_DIR`) is mode 0700 and the files
 * in it that hold data or secrets (the SQLite store and its `-wal`/`-shm`, `dev-api-key`, the
 * Temporal dev server's `temporal.db` and its log) are mode 0600, whatever the umask. SQLite gives
 * its `-wal` and `-shm` files the mode of the database file, so creating that file 0600 first
 * covers them; existing files are tightened at start.
 */
import fs from 'node:fs';

/** Mode of folders holding Assay's state: owner only. */
export const PRIVATE_DIR_MODE = 0o700;
/** Mode of files holding Assay's data or secrets: owner read/write only. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates `dir` (and missing parents) with mode 0700. With `tighten`, an existing `dir` is set to
 * 0700 too; use it only for folders that belong to Assay (the data folder), never for a parent
 * such as /tmp that a configured file path happens to live in.
 */
export function makePrivateDir(dir: string, options: { tighten?: boolean } = {}): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (options.tighten) fs.chmodSync(dir, PRIVATE_DIR_MODE);
}

/** Creates `file` empty with mode 0600 when it does not exist; sets an existing one to 0600. */
export function makePrivateFile(file: string): void {
  fs.closeSync(fs.openSync(file, 'a', PRIVATE_FILE_MODE));
  fs.chmodSync(file, PRIVATE_FILE_MODE);
}

/** Sets each of `files` that exists to mode 0600 (the others are skipped). */
export function tightenFiles(...files: string[]): void {
  for (const file of files) {
    try {
      fs.chmodSync(file, PRIVATE_FILE_MODE);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

/** A SQLite database file with its write-ahead log and shared-memory files. */
export function sqliteFiles(file: string): string[] {
  return [file, `${file}-wal`, `${file}-shm`, `${file}-journal`];
}
