/**
 * The environment a run freezes into its plan (activities/runs.ts `startRun`): the merged view of
 * its `extends` chain (src/store/environments.ts) overlaid with the run's own variables, and its
 * servers, checked against every server the runner's test cases name (src/flow/servers.ts).
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { EntityManager } from 'typeorm';
import type { Environment } from '../src/store/entities';
import type { TestCaseDefinition, Variables } from '../src/domain/types';
import { EnvironmentChainError, resolvedEnvironment } from '../src/store/environments';
import { missingServers, missingServersMessage } from '../src/flow/servers';
import { FAILURE_TYPES } from '../src/domain/failures';

/**
 * The plan's `variables` (the chain's, root first, then the run's own; secrets sealed as stored)
 * and `servers` (the chain's merged).
 * @throws ApplicationFailure (non-retryable, RunSetupFailed) when the chain cannot be followed (a
 *   parent deleted since, a cycle) or a node names a server the environment lacks (naming the test
 *   case, the node and the server)
 */
export async function frozenEnvironment(
  manager: EntityManager,
  environment: Environment,
  testCases: TestCaseDefinition[],
  runVariables: Variables,
): Promise<{ variables: Variables; servers: Record<string, string> }> {
  let merged;
  try {
    merged = await resolvedEnvironment(manager, environment);
  } catch (err) {
    if (err instanceof EnvironmentChainError)
      throw ApplicationFailure.nonRetryable(err.message, FAILURE_TYPES.runSetupFailed);
    throw err;
  }
  const variables: Variables = { ...merged.variables, ...runVariables };
  const missing = missingServers(testCases, merged.servers, variables);
  if (missing.length)
    throw ApplicationFailure.nonRetryable(
      missingServersMessage(missing, environment.name, merged.servers),
      FAILURE_TYPES.runSetupFailed,
    );
  return { variables, servers: merged.servers };
}
