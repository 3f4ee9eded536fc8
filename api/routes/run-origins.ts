/**
 * Runs made from other runs (docs/history.md "Rerun, replay, resume"; src/store/run-origins.ts):
 *
 *   POST /v1/runs/{runId}/rerun   {only?: "failed", testCases?: [id…]} → 201: a new run of the same
 *                                 runner, environment, variables, timeout and durability mode with only the test
 *                                 cases that failed (default) or the ones named (each must be one
 *                                 of the run's), as they are now
 *   POST /v1/runs/{runId}/replay  {} → 201: the run's frozen plan again, exactly (even after its
 *                                 test cases changed); the new run's `planHash` equals the origin's
 *   POST /v1/runs/{runId}/resume  {testCaseId?} → 201: the frozen plan again from the first failed
 *                                 test case (or the one named) at its first failed top-level node,
 *                                 with the variables and node outputs it had there; the results
 *                                 before it are copied, the requests before it are not sent again
 *
 * Each answers as `POST /v1/runs` does (201, `Location`, `{runId, status, runner, environment,
 * createdAt, links}`) plus `origin` (`{kind, runId, testCaseIds?, position?, nodeId?}`), which the
 * new run's document shows too. `Idempotency-Key` is honoured as for `POST /v1/runs`. Scope `run`.
 *
 * Problems: 404 `not-found` (no such run in the workspace), 409 `run-active` (the run has not
 * ended), 422 `nothing-to-rerun` (no failed test case, or none still exists), 422 `not-resumable`
 * (no failed test case with a recorded state: the detail says why for each), 422
 * `plan-unavailable` (the run never froze a plan: it ended before it started), 422
 * `unknown-reference` (a rerun's runner or environment was deleted), 400 `validation-failed`
 * (a body field, or a named test case that is not the run's), 429 `quota-exceeded`.
 */
import Router from '@koa/router';
import { Environment, Run, Runner } from '../../src/store/entities';
import { keyRingFor } from '../../src/secrets/keyring';
import type { RunOrigin } from '../../src/history/types';
import { OriginRefused, requireFrozenPlan, rerunSelection, resumeTarget } from '../../src/store/run-origins';
import type { ApiDeps, AppContext, AppState } from '../context';
import { Problem } from '../problem';
import { hasBody, parsedBody } from '../body';
import { bodyValidator } from '../validation';
import { readIdempotencyKey } from '../idempotency';
import { findOr404 } from '../lookups';
import { answerStartedRun, runStarter, type NewRun } from '../run-starter';

/** A test case id in a body (`tc_…`). */
const idSchema = { type: 'string', minLength: 1, maxLength: 40 } as const;

/** Body of `POST /v1/runs/{runId}/rerun`. */
export interface RerunInput {
  only?: 'failed';
  testCases?: string[];
}

/** Body of `POST /v1/runs/{runId}/resume`. */
export interface ResumeInput {
  testCaseId?: string;
}

/** The body schemas (what ajv validates with and what the OpenAPI document shows). */
export const RUN_ORIGIN_SCHEMAS = {
  rerun: {
    type: 'object',
    additionalProperties: false,
    properties: {
      only: {
        enum: ['failed'],
        description:
          "Which of the run's test cases: those that failed (the default). Ignored when `testCases` is given.",
      },
      testCases: {
        type: 'array',
        minItems: 1,
        maxItems: 1000,
        uniqueItems: true,
        items: idSchema,
        description: "Test case ids to run instead (each must be one of the run's), run in the run's order.",
      },
    },
  },
  replay: { type: 'object', additionalProperties: false, properties: {} },
  resume: {
    type: 'object',
    additionalProperties: false,
    properties: {
      testCaseId: {
        ...idSchema,
        description: 'The failed test case to resume (default: the first failed one with a recorded state).',
      },
    },
  },
} as const;

/** The problem an {@link OriginRefused} is answered with. */
function refusal(err: OriginRefused): Problem {
  return new Problem(err.code, err.message, err.extras);
}

export function runOriginsRouter(deps: ApiDeps): Router<AppState> {
  const { dataSource, workflows, config } = deps;
  const router = new Router<AppState>();
  const startRun = runStarter(deps);
  const ring = keyRingFor(config.secretKeys, config.dataDir);
  const validate = {
    rerun: bodyValidator<RerunInput>(RUN_ORIGIN_SCHEMAS.rerun),
    replay: bodyValidator<Record<string, never>>(RUN_ORIGIN_SCHEMAS.replay),
    resume: bodyValidator<ResumeInput>(RUN_ORIGIN_SCHEMAS.resume),
  };
  /** The body, `{}` when the request has none (every field is optional). */
  const optionalBody = (ctx: AppContext): unknown => (hasBody(ctx) ? parsedBody(ctx) : {});
  const loadOrigin = (ctx: AppContext) =>
    findOr404(
      dataSource.manager,
      Run,
      { id: ctx.params.runId!, workspaceId: ctx.state.caller.workspaceId },
      `Run "${ctx.params.runId}"`,
    );

  /**
   * The runner and environment of a run made from `origin`. A rerun freezes its plan from them, so
   * they must exist (422 `unknown-reference`); a replay or resume runs the origin's plan, so a
   * deleted one is named by the origin's row alone.
   */
  async function targetOf(origin: Run, required: boolean): Promise<Pick<NewRun, 'runner' | 'environment'>> {
    const [runner, environment] = await Promise.all([
      dataSource.getRepository(Runner).findOneBy({ workspaceId: origin.workspaceId, name: origin.runnerName }),
      dataSource
        .getRepository(Environment)
        .findOneBy({ workspaceId: origin.workspaceId, name: origin.environmentName }),
    ]);
    if (required && (!runner || !environment)) {
      const missing = !runner ? `runner "${origin.runnerName}"` : `environment "${origin.environmentName}"`;
      throw new Problem('unknown-reference', `Run ${origin.id}'s ${missing} no longer exists: a rerun needs it.`, {
        runId: origin.id,
      });
    }
    return {
      runner: runner ?? ({ id: origin.runnerId, name: origin.runnerName } as Runner),
      environment: environment ?? ({ id: origin.environmentId, name: origin.environmentName } as Environment),
    };
  }

  /** Starts the run made from `origin` and answers as `POST /v1/runs` does, plus `origin`. */
  async function start(
    ctx: AppContext,
    origin: Run,
    made: {
      origin: RunOrigin;
      selection: NewRun['selection'];
      body: unknown;
      target: Pick<NewRun, 'runner' | 'environment'>;
    },
  ): Promise<void> {
    const idempotency = readIdempotencyKey(ctx, `POST /v1/runs/${origin.id}/${made.origin.kind}`, made.body, ring);
    const started = await startRun({
      workspaceId: origin.workspaceId,
      ...made.target,
      timeoutSeconds: origin.timeoutSeconds,
      // As stored: secrets stay sealed (they open under any run: their seal is bound to their name).
      variables: origin.variables,
      loadProfile: origin.loadProfile,
      // The mode the origin ran with (a replay or resume runs its plan's, activities/runs.ts).
      durability: origin.durability,
      trigger: 'api',
      ...(origin.context ? { context: origin.context } : {}),
      origin: made.origin,
      selection: made.selection,
      idempotency,
    });
    const run = started.run;
    answerStartedRun(ctx, started, {
      status: 201,
      location: true,
      links: { self: `/v1/runs/${run.id}`, results: `/v1/runs/${run.id}/results`, temporal: workflows.uiLink(run) },
    });
    ctx.body = { ...(ctx.body as Record<string, unknown>), origin: run.origin ?? made.origin };
  }

  /** Runs `fn`, answering an {@link OriginRefused} as its problem. */
  async function refusing<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof OriginRefused) throw refusal(err);
      throw err;
    }
  }

  router.post('/runs/:runId/rerun', async (ctx) => {
    const body = validate.rerun(optionalBody(ctx));
    const origin = await loadOrigin(ctx);
    const { testCaseIds, selection } = await refusing(() => rerunSelection(dataSource.manager, origin, body));
    await start(ctx, origin, {
      origin: { kind: 'rerun', runId: origin.id, testCaseIds },
      selection,
      body,
      target: await targetOf(origin, true),
    });
  });

  router.post('/runs/:runId/replay', async (ctx) => {
    const body = validate.replay(optionalBody(ctx));
    const origin = await loadOrigin(ctx);
    await refusing(() => requireFrozenPlan(dataSource.manager, origin));
    await start(ctx, origin, {
      origin: { kind: 'replay', runId: origin.id },
      selection: null,
      body,
      target: await targetOf(origin, false),
    });
  });

  router.post('/runs/:runId/resume', async (ctx) => {
    const body = validate.resume(optionalBody(ctx));
    const origin = await loadOrigin(ctx);
    const at = await refusing(() => resumeTarget(dataSource.manager, origin, ring, body.testCaseId));
    await start(ctx, origin, {
      origin: {
        kind: 'resume',
        runId: origin.id,
        testCaseIds: [at.testCaseId],
        position: at.position,
        nodeId: at.nodeId,
      },
      selection: null,
      body,
      target: await targetOf(origin, false),
    });
  });

  return router;
}
