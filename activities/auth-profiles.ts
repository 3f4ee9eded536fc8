/**
 * Freezing a run's auth profiles into its plan (activities/runs.ts `startRun`; docs/auth.md): the
 * profiles its runner, test cases, folders and API nodes name, by name, literal secrets still
 * sealed (the activity applying a profile opens them), and the runner's own `authProfile`. A run
 * that names none gets neither field (its plan is as before). A name that no profile has any more
 * (deleted since the test case or runner was saved) fails the run's setup, naming it.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { EntityManager } from 'typeorm';
import type { RunPlan, TestCaseDefinition } from '../src/domain/types';
import { FAILURE_TYPES } from '../src/domain/failures';
import { profilesForPlan } from '../src/store/auth-profiles';
import type { Runner } from '../src/store/entities';

/** The plan's `authProfile` and `authProfiles`; @throws ApplicationFailure (RunSetupFailed) for a profile deleted since. */
export async function freezeAuthProfiles(
  manager: EntityManager,
  workspaceId: string,
  runner: Pick<Runner, 'authProfile'>,
  testCases: TestCaseDefinition[],
): Promise<Pick<RunPlan, 'authProfile' | 'authProfiles'>> {
  const { profiles, missing, named } = await profilesForPlan(manager, workspaceId, runner.authProfile, testCases);
  if (missing.length)
    throw ApplicationFailure.nonRetryable(
      `Auth profile${missing.length > 1 ? 's' : ''} ${missing.map((m) => `"${m}"`).join(', ')} no longer exist${missing.length > 1 ? '' : 's'}: the run cannot start (a test case, folder or runner still names ${missing.length > 1 ? 'them' : 'it'})`,
      FAILURE_TYPES.runSetupFailed,
    );
  if (!named) return {};
  return { ...(runner.authProfile ? { authProfile: runner.authProfile } : {}), authProfiles: profiles };
}
