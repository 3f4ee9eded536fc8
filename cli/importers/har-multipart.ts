/**
 * The parts of a recorded `multipart/form-data` body (RFC 7578) as a HAR keeps it in
 * `postData.text` (Chrome writes the body there; its file parts' bytes are often left out), for
 * `assay import har` (cli/importers/har.ts). Pure, and lenient: what cannot be read is left out
 * and the caller reports the body as not carried.
 */

/** One recorded part: a text field (`value`) or a file (`fileName`, whose bytes are not kept). */
export interface RecordedPart {
  /** The form field's name (Content-Disposition `name`). */
  name: string;
  /** A text part's value. */
  value?: string;
  /** A file part's file name (Content-Disposition `filename`). */
  fileName?: string;
  /** The part's own Content-Type, when it has one. */
  contentType?: string;
}

/**
 * The `boundary` parameter of a `multipart/*` media type (RFC 2046 §5.1.1), unquoted; undefined
 * when `mimeType` is not multipart or names none.
 */
export function multipartBoundary(mimeType: string | undefined): string | undefined {
  if (!mimeType || !/^\s*multipart\//i.test(mimeType)) return undefined;
  const m = /;\s*boundary\s*=\s*(?:"([^"]+)"|([^;\s]+))/i.exec(mimeType);
  return m ? (m[1] ?? m[2]) : undefined;
}

/** A Content-Disposition parameter (`name="x"`, `filename=x`), unquoted; undefined when absent. */
function dispositionParam(header: string, param: string): string | undefined {
  const m = new RegExp(`;\\s*${param}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]+))`, 'i').exec(header);
  if (!m) return undefined;
  return m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2];
}

/**
 * The parts of `text`, a multipart body delimited by `--boundary` lines (CRLF or LF line ends);
 * null when no part can be read (no delimiter, or a part without a Content-Disposition name).
 */
export function parseMultipartText(text: string, boundary: string): RecordedPart[] | null {
  const delimiter = `--${boundary}`;
  const pieces = text.split(delimiter);
  if (pieces.length < 2) return null;
  const parts: RecordedPart[] = [];
  // pieces[0] is the preamble; the piece after the close delimiter starts with `--`.
  for (const piece of pieces.slice(1)) {
    if (piece.startsWith('--')) break;
    const body = piece.replace(/^\r?\n/, '');
    const split = /\r?\n\r?\n/.exec(body);
    const head = split ? body.slice(0, split.index) : body;
    const content = split ? body.slice(split.index + split[0].length).replace(/\r?\n$/, '') : '';
    const headers = new Map<string, string>();
    for (const line of head.split(/\r?\n/)) {
      const colon = line.indexOf(':');
      if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const disposition = headers.get('content-disposition');
    const name = disposition ? dispositionParam(disposition, 'name') : undefined;
    if (name === undefined) return null;
    const fileName = dispositionParam(disposition!, 'filename');
    const contentType = headers.get('content-type');
    parts.push(
      fileName !== undefined
        ? { name, fileName, ...(contentType ? { contentType } : {}) }
        : { name, value: content, ...(contentType ? { contentType } : {}) },
    );
  }
  return parts.length ? parts : null;
}
