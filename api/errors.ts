/**
 * The one place where errors become answers (RFC 9457 `application/problem+json`): a
 * {@link Problem} is written with the headers it carries; everything else is first mapped to one
 * ({@link toProblem}): Koa's HTTP errors (body parsing, size limits) to their codes, an
 * unreachable database (src/store/errors.ts), or one that did not answer within the request's
 * bounds (src/store/bounds.ts, docs/operations.md), to 503 `database-unavailable` with `Retry-After`,
 * Temporal unreachable (src/temporal/run-workflows.ts) to 503 `temporal-unavailable`, and
 * anything else to a 500 whose body says only that something failed and gives the request id to
 * find it in the logs.
 */
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { Problem } from './problem';
import { isDatabaseTimeout, isDatabaseUnavailable } from '../src/store/errors';
import { KeyRingError } from '../src/secrets/keyring';
import { TemporalUnavailableError } from '../src/temporal/run-workflows';
import { SampleError } from '../src/mock/samples';
import { fieldError } from '../src/problems';
import type { AppContext, AppState } from './context';

/** Seconds a client is asked to wait while the database is unreachable. */
const DATABASE_RETRY_AFTER_SECONDS = 5;

function fromHttpError(err: { status?: number; type?: string; message?: string; expose?: boolean }): Problem | null {
  switch (err.status) {
    case 400:
      return new Problem('malformed-json', `The request body is not valid JSON: ${err.message ?? 'parse error'}`);
    case 413:
      return new Problem('payload-too-large', 'The request body exceeds the size limit.');
    case 405:
    case 501:
      return new Problem('method-not-allowed', err.message ?? 'Method not allowed');
    case 415:
      return new Problem('unsupported-media-type', err.message ?? 'Unsupported media type');
    default:
      return null;
  }
}

/** The 503 of a Temporal call that failed: what could not be done to which run. */
function fromTemporal(err: TemporalUnavailableError): Problem {
  if (err.operation === 'start') {
    return new Problem(
      'temporal-unavailable',
      `Run ${err.runId} could not be started: the workflow service is unavailable. Retry later.`,
      { runId: err.runId },
    );
  }
  const what =
    err.operation === 'cancel'
      ? 'the run could not be cancelled'
      : err.operation === 'signal'
        ? 'the callback was not delivered (send it again)'
        : err.operation === 'control'
          ? 'the command may not have reached the run (GET the run: `performance.control.commands` lists those applied)'
          : "the run's workflow could not be described";
  return new Problem('temporal-unavailable', `The workflow service is unavailable; ${what}. Retry later.`);
}

/**
 * The problem of schemas that cannot be sampled (src/mock/samples.ts `SampleError`: 422
 * `sample-too-large`, 400 `validation-failed`, 503 `ai-not-configured`, 502 `ai-failed`): `errors`
 * points into the request at each failure's `at` plus the error's own path; without `at` there is
 * no `errors`. `detail` defaults to `<field>: <what>` for one failure, a count for several.
 */
export function sampleProblem(
  failures: Array<{ err: SampleError; at?: Array<string | number> }>,
  detail?: string,
): Problem {
  const first = failures[0]!.err;
  const located = failures.filter((f) => f.at !== undefined);
  if (located.length === 0) return new Problem(first.code, detail ?? first.message);
  const errors = located.map(({ err, at }) => fieldError([...at!, ...err.path], err.detail));
  return new Problem(
    first.code,
    detail ??
      (errors.length === 1 ? `${errors[0]!.field}: ${first.detail}` : `${errors.length} responses cannot be sampled`),
    { errors },
  );
}

/** The problem answering `err` (module comment); logs what is not the client's doing. */
export function toProblem(err: unknown, ctx: AppContext, logger: Logger): Problem {
  if (err instanceof Problem) return err;
  const mapped = fromHttpError(err as { status?: number });
  if (mapped) return mapped;
  const where = { requestId: ctx.state.requestId, method: ctx.method, path: ctx.path };
  if (isDatabaseUnavailable(err)) {
    logger.warn({ ...where, error: (err as Error).message }, 'database unavailable');
    // A statement that timed out may still be applied when the server resumes: do not promise otherwise.
    const detail = isDatabaseTimeout(err)
      ? `The database did not answer in time. Retry in ${DATABASE_RETRY_AFTER_SECONDS} s (a run start with the same Idempotency-Key never starts a second run).`
      : `The database cannot be reached right now; nothing was changed. Retry in ${DATABASE_RETRY_AFTER_SECONDS} s.`;
    return new Problem('database-unavailable', detail, { retryAfter: DATABASE_RETRY_AFTER_SECONDS });
  }
  if (err instanceof TemporalUnavailableError) return fromTemporal(err);
  if (err instanceof SampleError) return sampleProblem([{ err }]);
  if (err instanceof KeyRingError) {
    logger.error({ ...where, error: err.message }, 'stored secret cannot be opened');
    return new Problem('secret-unavailable', `A stored secret cannot be opened: ${err.message}. Nothing was changed.`);
  }
  logger.error({ err, ...where }, 'unhandled error');
  return new Problem('internal', 'An internal error occurred. Quote the instance id when reporting it.');
}

/** Catches everything thrown below it and answers it as problem+json with the problem's headers. */
export function errorHandler(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const problem = toProblem(err, ctx, logger);
      ctx.status = problem.status;
      // The request body was not read to its end (a 413, or a refusal before parsing): the rest
      // would be read as the next request or stall the connection, so close it after this answer.
      if (!ctx.req.complete) ctx.set('Connection', 'close');
      ctx.set(problem.headers);
      ctx.type = 'application/problem+json';
      ctx.body = problem.toJSON(`urn:assay:request:${ctx.state.requestId}`);
    }
  };
}
