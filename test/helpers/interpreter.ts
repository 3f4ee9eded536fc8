/**
 * The in-process flow interpreter harness of the unit tests: flows run through the direct port
 * (activities/direct-port.ts) as load tests and `testCase`-mode segments run them, with no
 * Temporal and no API.
 */
import { directPorts, type DirectPortOptions } from '../../activities/direct-port';
import { ExpressionPool } from '../../src/expression-pool/pool';
import { AddressPolicy } from '../../src/net/address-policy';
import { Sandbox } from '../../src/sandbox/sandbox';
import type { RunSettings, TestCaseDefinition, TestCaseResult } from '../../src/domain/types';
import { FlowInterpreter, type InterpreterPort } from '../../src/flow';

/**
 * The run settings every port of the harness gets unless a test replaces some: API nodes run in
 * the process (`local`), 5 s per request, responses up to 1 MiB, 100 test cases per execution,
 * 1000 loop iterations, segments of 10 history events.
 */
export const INTERPRETER_SETTINGS: Readonly<RunSettings> = {
  apiNodeActivity: 'local',
  requestTimeoutMs: 5000,
  maxResponseBytes: 1024 * 1024,
  testCasesPerExecution: 100,
  maxLoopIterations: 1000,
  segmentHistoryEvents: 10,
};

/** What a test file may change in the harness. */
export interface InterpreterHarnessOptions {
  /** Fields of {@link INTERPRETER_SETTINGS} to replace (e.g. a larger `maxResponseBytes`). */
  settings?: Partial<RunSettings>;
  /** The sandbox's memory limit per script context, MiB (default 32). */
  memoryLimitMb?: number;
}

/** One port's options: {@link DirectPortOptions}, each with a default. */
export type HarnessPortOptions = Partial<DirectPortOptions>;

/** One test case's run: {@link InterpreterHarness.run}. */
export interface HarnessRunOptions {
  /** The variables the test case starts with (e.g. `{ base }`: the test's server). Default none. */
  variables?: Record<string, unknown>;
  /** The test case's name (default `the case`); its id is always `tc_1`. */
  name?: string;
  /** The test case's data sets (default none). */
  dataSets?: Record<string, unknown[]>;
  /** The port's options (default: {@link InterpreterHarness.port}'s). */
  port?: HarnessPortOptions;
}

/** The harness of one `describe` block; its resources exist between the block's `before` and `after`. */
export interface InterpreterHarness {
  /** The settings every port gets: {@link INTERPRETER_SETTINGS} with the file's replacements. */
  readonly settings: RunSettings;
  /** directPorts' factory over the harness's sandbox, agent and expression pool; throws before the block's `before` hook ran. */
  readonly portFor: (options: DirectPortOptions) => InterpreterPort;
  /** A new run id: `run_<n>`, n counting from 1 per harness. */
  runId(): string;
  /** A port: a new {@link runId}, {@link settings}, a deadline 20 s from now, and `options` over them. */
  port(options?: HarnessPortOptions): InterpreterPort;
  /** The test case `tc_1` (`the case` unless named) of a flow, with no folder, tags or data sets unless given. */
  testCase(flow: unknown[], options?: { name?: string; dataSets?: Record<string, unknown[]> }): TestCaseDefinition;
  /** Runs a flow as {@link testCase} on a new {@link port}: FlowInterpreter.runTestCase's result (DeadlineReached is thrown). */
  run(flow: unknown[], options?: HarnessRunOptions): Promise<TestCaseResult>;
}

/**
 * Registers, in the calling `describe` block, a `before` hook that builds an address policy
 * letting every kind of traffic reach loopback only (private addresses are refused by default,
 * src/net/address-policy.ts; allowed here as the integration tests do with
 * ASSAY_EGRESS_PRIVATE_FOR_*=loopback; the bundler none), a script sandbox under it (2 s per
 * script), a one-thread expression pool and directPorts over them with the policy's `node` agent;
 * and an `after` hook that disposes of them. The harness listens on no port and binds nothing: the
 * only sockets bound are those of the test's own servers, which the test starts and stops itself.
 */
export function useInterpreter(options: InterpreterHarnessOptions = {}): InterpreterHarness {
  const settings: RunSettings = { ...INTERPRETER_SETTINGS, ...options.settings };
  let policy: AddressPolicy | undefined;
  let sandbox: Sandbox | undefined;
  let pool: ExpressionPool | undefined;
  let factory: ((options: DirectPortOptions) => InterpreterPort) | undefined;
  let runs = 0;

  before(() => {
    policy = new AddressPolicy({
      allow: [],
      deny: [],
      privateAccess: {
        node: 'loopback',
        script: 'loopback',
        library: 'loopback',
        webhook: 'loopback',
        bundler: 'none',
      },
      infrastructure: [],
    });
    sandbox = new Sandbox({ timeoutMs: 2000, memoryLimitMb: options.memoryLimitMb ?? 32, policy });
    pool = new ExpressionPool({ size: 1 });
    factory = directPorts({ sandbox, agent: policy.agent('node'), expressionPool: pool });
  });

  after(async () => {
    await sandbox?.dispose();
    await pool?.close();
    await policy?.close();
  });

  const harness: InterpreterHarness = {
    settings,
    get portFor() {
      if (!factory) throw new Error('useInterpreter: the ports exist once the describe block’s before hook ran');
      return factory;
    },
    runId: () => `run_${++runs}`,
    port: (portOptions = {}) =>
      harness.portFor({
        ...portOptions,
        runId: portOptions.runId ?? harness.runId(),
        settings: portOptions.settings ?? settings,
        deadlineMs: portOptions.deadlineMs ?? Date.now() + 20_000,
      }),
    testCase: (flow, caseOptions = {}) => ({
      id: 'tc_1',
      name: caseOptions.name ?? 'the case',
      folder: '',
      tags: [],
      flow: flow as TestCaseDefinition['flow'],
      dataSets: caseOptions.dataSets ?? {},
    }),
    run: (flow, runOptions = {}) =>
      FlowInterpreter.runTestCase(
        harness.port(runOptions.port),
        harness.testCase(flow, runOptions),
        runOptions.variables ?? {},
      ),
  };
  return harness;
}
