/**
 * Queries of runs that more than one part of Assay makes.
 */
import type { EntityManager } from 'typeorm';
import { Run } from './entities';

/**
 * The run `runId` with its frozen plan, which a plain find leaves out (the `plan` column is not
 * selected by default: it can be large). null when there is no such run; `plan` null until the
 * run has started (activities/runs.ts `startRun` freezes it).
 */
export function findRunWithPlan(manager: EntityManager, runId: string): Promise<Run | null> {
  return manager
    .getRepository(Run)
    .createQueryBuilder('run')
    .addSelect('run.plan')
    .where('run.id = :id', { id: runId })
    .getOne();
}
