/**
 * Which run, so which workspace and which secret values, a Temporal payload belongs to
 * (src/temporal/codec.ts `PayloadScopes`), from the workflow id the SDK's serialization context
 * names:
 *
 * - `run-<runId>` (a run), `run-<runId>-loop-…` (its loop segments), `webhooks-<runId>` (its
 *   webhook deliveries): the run `<runId>` (`run_` and a ULID, src/ids.ts);
 * - `run-scheduled-<deploymentId>-<time>` (a run a schedule started, src/temporal/schedules.ts): the
 *   run whose `workflowId` it is once the workflow created it, else the deployment (its workspace,
 *   no secret yet: the run's plan does not exist yet);
 * - anything else: no run (its payloads are encrypted with the ring key, operator-only).
 *
 * A run's secret values are those of its frozen plan (its environment's and its own secret
 * variables, its auth profiles' literal secrets), or of its own variables while it has no plan.
 * Scopes of runs with a plan are kept in memory (per process, at most {@link MAX_RUNS}; run ids are
 * unique across databases, so one cache serves every store of a process); `startRun` hands its
 * opened plan over directly ({@link rememberRunScope}), so the plan's own payload is sealed with the
 * plan's secrets even before any lookup.
 */
import type { DataSource } from 'typeorm';
import { Deployment, Run } from '../store/entities';
import type { FrozenAuthProfile } from '../domain/auth-profiles';
import { openProfileFields } from '../auth/profile-fields';
import { HistorySealer, NO_HISTORY_SECRETS } from '../secrets/history-seal';
import { KeyRing, keyRingFor } from '../secrets/keyring';
import type { AssayConfig } from '../config';
import { openVariables, type StoredVariable } from '../secrets/variables';
import type { PayloadScope, PayloadScopes } from './codec';

/** A run id inside a workflow id. */
const RUN_ID = /\brun_[0-9A-HJKMNP-TV-Z]{26}\b/;
/** A deployment id inside a scheduled run's workflow id. */
const SCHEDULED = /^run-scheduled-(dep_[0-9A-HJKMNP-TV-Z]{26})\b/;
/** Runs (with a plan) whose scope this process keeps. */
const MAX_RUNS = 5000;

const runs = new Map<string, PayloadScope>();
const scheduledRuns = new Map<string, string>();
const deployments = new Map<string, string>();

function keep<K, V>(map: Map<K, V>, key: K, value: V): V {
  map.delete(key);
  map.set(key, value);
  while (map.size > MAX_RUNS) map.delete(map.keys().next().value as K);
  return value;
}

/** Records the scope of a run whose plan this process just opened (activities/runs.ts `startRun`). */
export function rememberRunScope(runId: string, workspaceId: string, secretValues: Iterable<string>): void {
  keep(runs, runId, { workspaceId, sealer: new HistorySealer(secretValues) });
}

/** Secret values of stored variables and frozen auth profiles; what cannot be opened is skipped (the run fails on it elsewhere). */
export function runSecretValues(
  ring: KeyRing,
  variables: Record<string, StoredVariable> | null | undefined,
  profiles: Record<string, FrozenAuthProfile> | null | undefined,
): string[] {
  const values: string[] = [];
  try {
    values.push(...openVariables(variables ?? {}, ring).secretValues);
  } catch {
    /* a key gone from the ring: the run cannot start anyway */
  }
  for (const profile of Object.values(profiles ?? {})) {
    try {
      const opened = openProfileFields(profile, ring);
      for (const [name, value] of Object.entries(profile.config))
        if (KeyRing.isSealed(value) && typeof opened[name] === 'string') values.push(opened[name] as string);
    } catch {
      /* likewise */
    }
  }
  return values;
}

const json = <T>(value: unknown): T | null =>
  value === null || value === undefined ? null : ((typeof value === 'string' ? JSON.parse(value) : value) as T);

/** {@link PayloadScopes} read from the store (the API's and the worker's codec). */
export class StorePayloadScopes implements PayloadScopes {
  constructor(
    private readonly dataSource: DataSource,
    private readonly ring: KeyRing,
  ) {}

  async scopeOf(workflowId: string): Promise<PayloadScope | undefined> {
    let runId = RUN_ID.exec(workflowId)?.[0] ?? scheduledRuns.get(workflowId);
    const scheduled = runId ? undefined : SCHEDULED.exec(workflowId)?.[1];
    if (!runId && !scheduled) return undefined;
    if (runId) {
      const known = runs.get(runId);
      if (known) return known;
    }
    if (!this.dataSource.isInitialized) return undefined;
    const qb = this.dataSource
      .createQueryBuilder(Run, 'r')
      .select('r.id', 'id')
      .addSelect('r.workspaceId', 'workspaceId')
      .addSelect('r.variables', 'variables')
      .addSelect("json_extract(r.plan, '$.variables')", 'planVariables')
      .addSelect("json_extract(r.plan, '$.authProfiles')", 'planProfiles')
      .addSelect('CASE WHEN r.plan IS NULL THEN 0 ELSE 1 END', 'planned');
    const row = (await (
      runId ? qb.where('r.id = :runId', { runId }) : qb.where('r.workflowId = :workflowId', { workflowId })
    ).getRawOne()) as
      | {
          id: string;
          workspaceId: string;
          variables: unknown;
          planVariables: unknown;
          planProfiles: unknown;
          planned: number | string;
        }
      | undefined;
    if (!row) {
      if (!scheduled) return undefined;
      // A schedule's workflow before it created its run: the deployment's workspace, no secret yet.
      let workspaceId = deployments.get(scheduled);
      if (!workspaceId) {
        const deployment = await this.dataSource.manager
          .getRepository(Deployment)
          .findOne({ where: { id: scheduled }, select: { id: true, workspaceId: true } });
        if (!deployment) return undefined;
        workspaceId = keep(deployments, scheduled, deployment.workspaceId);
      }
      return { workspaceId, sealer: NO_HISTORY_SECRETS };
    }
    if (scheduled) keep(scheduledRuns, workflowId, row.id);
    runId = row.id;
    const planned = Number(row.planned) === 1;
    const variables = planned
      ? json<Record<string, StoredVariable>>(row.planVariables)
      : json<Record<string, StoredVariable>>(row.variables);
    const scope: PayloadScope = {
      workspaceId: row.workspaceId,
      sealer: new HistorySealer(
        runSecretValues(
          this.ring,
          variables,
          planned ? json<Record<string, FrozenAuthProfile>>(row.planProfiles) : null,
        ),
      ),
    };
    // Without a plan the run's secrets are not all known yet (its environment's come with the plan): not kept.
    return planned ? keep(runs, runId, scope) : scope;
  }
}

/** The store-backed scopes of `config`'s key ring over `dataSource`. */
export function storePayloadScopes(
  config: Pick<AssayConfig, 'secretKeys' | 'dataDir'>,
  dataSource: DataSource,
): StorePayloadScopes {
  return new StorePayloadScopes(dataSource, keyRingFor(config.secretKeys, config.dataDir));
}
