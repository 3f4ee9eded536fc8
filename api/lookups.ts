/**
 * Looking up what a request names in the caller's workspace: the runner and environment a run
 * starts with (POST /v1/runs, deployments, run-now, incoming webhooks), and any one record by
 * its key, 404 `not-found` when the workspace has none; listings query the workspace's rows.
 */
import type {
  DataSource,
  EntityManager,
  EntityTarget,
  FindOptionsWhere,
  ObjectLiteral,
  Repository,
  SelectQueryBuilder,
} from 'typeorm';
import { Environment, Runner, type Deployment } from '../src/store/entities';
import { fieldError } from '../src/problems';
import { Problem } from './problem';
import type { AppContext } from './context';

/** The runner and the environment of a run. */
export interface RunTarget {
  runner: Runner;
  environment: Environment;
}

/** The runner and the environment named, in `workspaceId`; null for each that does not exist. */
async function findRunTarget(
  dataSource: DataSource,
  workspaceId: string,
  names: { runner: string; environment: string },
) {
  const [runner, environment] = await Promise.all([
    dataSource.getRepository(Runner).findOneBy({ workspaceId, name: names.runner }),
    dataSource.getRepository(Environment).findOneBy({ workspaceId, name: names.environment }),
  ]);
  return { runner, environment };
}

/**
 * The runner and the environment a request body names (fields `runner`, `environment`).
 * @throws Problem 422 `unknown-reference` with one field error per name that does not exist.
 */
export async function requireRunTarget(
  dataSource: DataSource,
  workspaceId: string,
  names: { runner: string; environment: string },
): Promise<RunTarget> {
  const { runner, environment } = await findRunTarget(dataSource, workspaceId, names);
  const errors = [
    ...(runner ? [] : [fieldError(['runner'], `runner "${names.runner}" does not exist`)]),
    ...(environment ? [] : [fieldError(['environment'], `environment "${names.environment}" does not exist`)]),
  ];
  if (errors.length > 0) throw new Problem('unknown-reference', errors.map((e) => e.detail).join('; '), { errors });
  return { runner: runner!, environment: environment! };
}

/**
 * The runner and the environment a run of deployment `d` starts with: its own, or the
 * environment `environmentOverride` names (an incoming webhook's body field `environment`).
 * @throws Problem 422 `unknown-reference`: naming field `environment` when the override does not
 *   exist; else saying which of the deployment's own references no longer exists.
 */
export async function deploymentRunTarget(
  dataSource: DataSource,
  d: Deployment,
  environmentOverride?: string,
): Promise<RunTarget> {
  const environmentName = environmentOverride ?? d.environmentName;
  const { runner, environment } = await findRunTarget(dataSource, d.workspaceId, {
    runner: d.runnerName,
    environment: environmentName,
  });
  if (!environment && environmentOverride !== undefined) {
    throw new Problem('unknown-reference', `environment "${environmentName}" does not exist`, {
      errors: [fieldError(['environment'], `environment "${environmentName}" does not exist`)],
    });
  }
  if (!runner) throw new Problem('unknown-reference', `The deployment's runner "${d.runnerName}" no longer exists.`);
  if (!environment)
    throw new Problem('unknown-reference', `The deployment's environment "${environmentName}" no longer exists.`);
  return { runner, environment };
}

/**
 * The one record of `entity` matching `where` (which includes the caller's workspace).
 * @param what how the 404 detail names it, e.g. `Runner "smoke"`.
 * @throws Problem 404 `not-found`: "<what> does not exist."
 */
export async function findOr404<E extends ObjectLiteral>(
  manager: EntityManager,
  entity: EntityTarget<E>,
  where: FindOptionsWhere<E>,
  what: string,
): Promise<E> {
  const found = await manager.getRepository(entity).findOneBy(where);
  if (!found) throw new Problem('not-found', `${what} does not exist.`);
  return found;
}

/** A query of `repo`'s rows in the caller's workspace (`alias` names the entity in it), for a listing to filter and page. */
export function workspaceRows<E extends ObjectLiteral>(
  repo: Repository<E>,
  alias: string,
  ctx: AppContext,
): SelectQueryBuilder<E> {
  return repo.createQueryBuilder(alias).where(`${alias}.workspaceId = :ws`, { ws: ctx.state.caller.workspaceId });
}
