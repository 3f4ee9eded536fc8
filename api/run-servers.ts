/**
 * The servers check of a new run (api/run-starter.ts): a run whose environment (merged through its
 * `extends` chain, src/store/environments.ts) lacks a server one of the runner's test cases names is
 * refused up front, before anything is stored. The same check runs again when the run freezes its
 * plan (activities/run-environment.ts), which catches what changed in between.
 */
import type { DataSource } from 'typeorm';
import type { Environment, TestCase } from '../src/store/entities';
import type { Variables } from '../src/domain/types';
import { EnvironmentChainError, resolvedEnvironment } from '../src/store/environments';
import { missingServers, missingServersMessage } from '../src/flow/servers';
import { Problem } from './problem';

/**
 * @throws Problem `server-missing` (422) with `environment`, `testCase`, `node`, `server` (the first)
 *   and `missing` (every one: `{testCase, node, server}`); `unknown-reference` (422) when the
 *   environment's chain cannot be followed
 */
export async function refuseMissingServers(
  dataSource: DataSource,
  input: { environment: Environment; variables: Variables },
  selected: TestCase[],
): Promise<void> {
  let merged;
  try {
    merged = await resolvedEnvironment(dataSource.manager, input.environment);
  } catch (err) {
    if (err instanceof EnvironmentChainError)
      throw new Problem('unknown-reference', err.message, { environment: input.environment.name });
    throw err;
  }
  const variables = { ...merged.variables, ...input.variables };
  const missing = missingServers(selected, merged.servers, variables);
  if (!missing.length) return;
  const first = missing[0]!;
  throw new Problem('server-missing', missingServersMessage(missing, input.environment.name, merged.servers), {
    environment: input.environment.name,
    testCase: first.testCase,
    node: first.node,
    server: first.server,
    missing: missing.map((m) => ({ testCase: m.testCase, node: m.node, server: m.server })),
  });
}
