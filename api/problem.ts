/**
 * The error handlers throw: a {@link Problem} of the catalogue (src/problems.ts) with the headers its
 * answer needs. One middleware (api/errors.ts) writes it as `application/problem+json`.
 */
import { PROBLEMS, problemDocument, type FieldError, type ProblemCode } from '../src/problems';

/** Extension members of a problem document (RFC 9457 §3.2): `errors`, `runId`, `retryAfter`, … */
export type ProblemExtras = { errors?: FieldError[]; [key: string]: unknown };

/** Headers every answer of a code carries, whoever throws it. */
const HEADERS_OF_CODE: Partial<Record<ProblemCode, Record<string, string>>> = {
  // RFC 9110 §11.6.1: a 401 MUST carry WWW-Authenticate.
  unauthorized: { 'WWW-Authenticate': 'Bearer realm="assay"' },
};

/**
 * An error answered as problem+json, carrying the headers of its answer (`headers`): those of
 * its code (`WWW-Authenticate` on 401), `Retry-After` (RFC 9110 §10.2.3) whenever the document
 * has a numeric `retryAfter` member (seconds; 429 and 503 answers), and the `headers` given
 * (e.g. `Allow` on 405).
 */
export class Problem extends Error {
  /** The HTTP status, from the catalogue. */
  readonly status: number;
  /** Response headers of the answer, by name. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    readonly extras: ProblemExtras = {},
    options: { headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.name = 'Problem';
    this.status = PROBLEMS[code].status;
    this.headers = {
      ...HEADERS_OF_CODE[code],
      ...(typeof extras.retryAfter === 'number' ? { 'Retry-After': String(extras.retryAfter) } : {}),
      ...options.headers,
    };
  }

  /** The problem document (src/problems.ts `problemDocument`); `instance` identifies this occurrence. */
  toJSON(instance?: string): Record<string, unknown> {
    return problemDocument(this.code, this.detail, this.extras, instance);
  }
}

/** Shorthand: a 400 validation-failed problem with one or more field errors. */
export function invalid(errors: FieldError[], detail?: string): Problem {
  const first = errors[0];
  return new Problem(
    'validation-failed',
    detail ??
      (errors.length === 1 && first
        ? `${first.field || 'body'}: ${first.detail}`
        : `${errors.length} fields are invalid`),
    { errors },
  );
}

/** Whole seconds a client should wait for `ms` milliseconds to pass: at least 1 (`Retry-After` values). */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
