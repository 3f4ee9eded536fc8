/**
 * The files a Postman collection sends (docs/import-postman.md "Files"): form-data file fields
 * (`{"type": "file", "src": "path" | ["a", "b"]}`) and binary bodies (`body.mode: "file"`,
 * `body.file.src`), read as Newman reads them (relative to its `--working-dir`,
 * postman-runtime lib/runner/request-helpers-presend.js and newman lib/run/secure-fs.js), become
 * workspace files (docs/flows.md "Files") the API nodes name: `request.multipart` file parts and
 * `request.file`. Pure: the command (cli/commands/import-postman.ts) reads the bytes through
 * {@link PostmanFileReader} and uploads {@link PostmanFiles.uploads}.
 *
 * - Each file is uploaded once per content (its SHA-256): several fields or requests naming the
 *   same bytes share one workspace file. Its name is `postman/` and its path relative to the
 *   working directory (the file name only when outside it), each segment made of the characters
 *   workspace file names take (cli/workspace-files.ts `fileNameSegment`); another content under a
 *   name already given gets `-2`, `-3` before its extension.
 * - A file that cannot be read is left out of the request, as Newman leaves a form field whose
 *   file fails to load out ("file load error") and sends a binary body without it, and listed.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { MultipartPart } from '../../src/domain/types';
import { fileNameSegment, guessContentType } from '../workspace-files';

/** A note of the import report (postman.ts `ImportNote`). */
interface Note {
  at: string;
  message: string;
}

/**
 * Reads a file a collection names. `src`: as written in the collection (relative to the working
 * directory, or absolute). @returns its bytes and `relative`: its path relative to the working
 * directory with `/` separators (the file name alone when it is outside); or `error`: why it cannot
 * be read (`no such file`, `is not a file`, …).
 */
export type PostmanFileReader = (src: string) => { bytes: Uint8Array; relative: string } | { error: string };

/** A workspace file to upload (`PUT /v1/files/{file}`) before the test cases that name it are saved. */
export interface PostmanUpload {
  /** The workspace file name. */
  file: string;
  /** The paths as written in the collection that read these bytes (first one named the file). */
  srcs: string[];
  bytes: Uint8Array;
  /** By the first path's extension (cli/workspace-files.ts `guessContentType`), as Newman types a file it sends. */
  contentType: string;
  /** Hex SHA-256 of `bytes`. */
  sha256: string;
  /** Where it is sent: `Folder / Request`, one per request. */
  at: string[];
}

/** The form-data parameter fields the mapping reads (postman-collection's FormParam). */
export interface FormParamLike {
  key?: string;
  value?: unknown;
  type?: string;
  src?: unknown;
  disabled?: boolean;
  contentType?: string;
  fileName?: string;
}

/** The files of one import: what each `src` became, deduplicated by content. */
export class PostmanFiles {
  readonly uploads: PostmanUpload[] = [];
  private readonly bySrc = new Map<string, PostmanUpload | { error: string }>();

  /** `read`: absent when the import reads no files (a unit use): every file is then listed as not read. */
  constructor(private readonly read?: PostmanFileReader) {}

  /** The upload of `src`, or why there is none. */
  private resolve(src: string): PostmanUpload | { error: string } {
    const known = this.bySrc.get(src);
    if (known) return known;
    let outcome: PostmanUpload | { error: string };
    const got = this.read ? this.read(src) : { error: 'was not read' };
    if ('error' in got) outcome = got;
    else {
      const sha256 = createHash('sha256').update(got.bytes).digest('hex');
      const same = this.uploads.find((u) => u.sha256 === sha256);
      if (same) {
        same.srcs.push(src);
        outcome = same;
      } else {
        outcome = {
          file: this.uniqueName(got.relative),
          srcs: [src],
          bytes: got.bytes,
          contentType: guessContentType(src),
          sha256,
          at: [],
        };
        this.uploads.push(outcome);
      }
    }
    this.bySrc.set(src, outcome);
    return outcome;
  }

  /** `postman/<relative path>`, made a workspace file name, unique among this import's uploads. */
  private uniqueName(relative: string): string {
    const segments = relative
      .split(/[\\/]+/)
      .map((s) => fileNameSegment(s))
      .filter((s): s is string => s !== null);
    let base = ['postman', ...(segments.length ? segments : ['file'])].join('/');
    if (base.length > 190) base = `postman/${segments.at(-1)!.slice(-180)}`;
    const taken = new Set(this.uploads.map((u) => u.file));
    const ext = path.posix.extname(base);
    const stem = base.slice(0, base.length - ext.length);
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${stem}-${n}${ext}`;
    return name;
  }

  /** The workspace file `src` became for the request at `at`; undefined (and a note) when it cannot be read. */
  fileFor(src: string, at: string, what: string, notes: Note[]): PostmanUpload | undefined {
    const got = this.resolve(src);
    if ('error' in got) {
      notes.push({
        at,
        message: `${what}: file ${JSON.stringify(src)} ${got.error}; left out, as Newman leaves out a file it cannot load`,
      });
      return undefined;
    }
    if (!got.at.includes(at)) got.at.push(at);
    return got;
  }
}

/** A form-data text value as Newman sends it: text as written, other JSON values as JSON (postman-runtime core-body-builder.js). */
function textValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  return JSON.stringify(value) ?? '';
}

/**
 * The `request.multipart` parts of a form-data body that has file fields (in order; disabled
 * fields and those without a key left out), or undefined when it has none (the caller keeps its
 * text form). A file field with several `src` paths is one part per path, as Newman sends them;
 * a part's `filename` is the field's `fileName`, else the path's last segment, and its
 * `contentType` the field's, else the uploaded file's type.
 */
export function multipartOf(
  params: FormParamLike[],
  at: string,
  files: PostmanFiles,
  notes: Note[],
): MultipartPart[] | undefined {
  const enabled = params.filter((p) => !p.disabled && p.key);
  if (!enabled.some((p) => p.type === 'file')) return undefined;
  const parts: MultipartPart[] = [];
  for (const p of enabled) {
    const name = p.key!;
    if (p.type !== 'file') {
      parts.push({ name, value: textValue(p.value) });
      if (p.contentType)
        notes.push({
          at,
          message: `form-data text field "${name}": its Content-Type ${p.contentType} is not sent (beside file fields, Assay's text parts carry none)`,
        });
      continue;
    }
    const srcs = (Array.isArray(p.src) ? p.src : [p.src]).filter((s): s is string => typeof s === 'string' && s !== '');
    if (!srcs.length) {
      notes.push({
        at,
        message: `form-data file field "${name}" names no file (Newman sends it empty, with filename=""); left out`,
      });
      continue;
    }
    for (const src of srcs) {
      const upload = files.fileFor(src, at, `form-data file field "${name}"`, notes);
      if (!upload) continue;
      parts.push({
        name,
        file: upload.file,
        filename: p.fileName || path.basename(src.replace(/\\/g, '/')),
        ...(p.contentType ? { contentType: p.contentType } : {}),
      });
    }
  }
  return parts;
}

/**
 * The `request.file` of a binary body (`body.file.src`): the workspace file, sent with the
 * request's own Content-Type, else the file's type (as Newman's request library types a file
 * stream); undefined (and a note) when it names none or cannot be read.
 */
export function fileBodyOf(
  file: { src?: unknown } | undefined,
  at: string,
  files: PostmanFiles,
  notes: Note[],
): string | undefined {
  const src = file?.src;
  if (typeof src !== 'string' || !src) {
    notes.push({ at, message: 'binary body names no file; sent without a body, as Newman sends it' });
    return undefined;
  }
  return files.fileFor(src, at, 'binary body', notes)?.file;
}
