/**
 * The designer's debug run (docs/console.md "The designer"): runs the test case as the
 * designer holds it (not the saved one) through the real engine with `POST /v1/test-cases/debug`
 * (body {@link DebugRunBody}; 201 with the run document, `trigger: "debug"`; 400/422 problems whose
 * `errors[].pointer` are under `/testCase/…`), polls `GET /v1/runs/{runId}` every second until it
 * ends, then reads `GET /v1/runs/{runId}/results` and paints each node's result by id
 * ({@link paintResults}). "Send" ({@link DebugRun.sendNode}) is the same for one API node alone.
 */
import { useCallback, useMemo, useRef, useState } from 'preact/hooks';
import { api, problemOf, type Problem } from '../../api';
import { usePoll } from '../../hooks';
import { isActive, type NodeResult, type Run, type RunResults, type TestCaseResult } from '../../types';
import { paintResults } from './paint';
import {
  debugFieldErrors,
  debugRunBody,
  findNode,
  sendNodeTestCase,
  type DebugFieldError,
  type DebugTestCase,
} from './request';

/**
 * Where a debug run is: `idle` (none yet, or {@link DebugRun.reset}), `starting` (the POST is under
 * way), `running` (queued or running, or ended with its results still to be read), `done` (completed,
 * results read, whether the test case passed or failed), `failed` (the POST was refused, or the run
 * itself failed: `run.error`; its results are read all the same).
 */
export type DebugState = 'idle' | 'starting' | 'running' | 'done' | 'failed';

/** What {@link useDebugRun} returns. */
export interface DebugRun {
  state: DebugState;
  /** The run document (`GET /v1/runs/{runId}`): `runId`, `status`, `result`, `summary`, `error`… */
  run: Run | undefined;
  /** Each node's last result by node id (through branches, loop iterations and Parallel lanes). */
  results: Map<string, NodeResult>;
  /** How many results each node had (more than 1 in a loop body, or once per data-set row). */
  counts: Map<string, number>;
  /** The run's test case results as `GET /v1/runs/{runId}/results` has them (`details.testCases`). */
  testCases: TestCaseResult[];
  /** Why the run could not start, or why polling it failed (RFC 9457 problem). */
  problem: Problem | undefined;
  /** The refusal's field errors, pointing into the designer's document ({@link debugFieldErrors}). */
  fieldErrors: DebugFieldError[];
  /** The node "Send" ran alone, or undefined for a run of the whole test case. */
  sentNodeId: string | undefined;
  /** Debugs `doc` (the whole test case) in `environment`, with the run's `variables`. */
  start: (doc: DebugTestCase, environment: string, variables?: Record<string, unknown>) => Promise<void>;
  /**
   * "Send": debugs node `nodeId` of `doc` alone ({@link sendNodeTestCase}: the test case's auth
   * profile, data sets and hooks kept). A node that is not an API node, or not in the flow, ends
   * `failed` with the problem `debug-node-not-sendable` (nothing is sent).
   */
  sendNode: (
    doc: DebugTestCase,
    nodeId: string,
    environment: string,
    variables?: Record<string, unknown>,
  ) => Promise<void>;
  /** Forgets the run (back to `idle`). */
  reset: () => void;
}

const seg = encodeURIComponent;
const EMPTY = { results: new Map<string, NodeResult>(), counts: new Map<string, number>() };

/** The designer's debug run: see {@link DebugRun}. One run at a time; a new start forgets the last. */
export function useDebugRun(): DebugRun {
  const [runId, setRunId] = useState<string>();
  const [first, setFirst] = useState<Run>();
  const [starting, setStarting] = useState(false);
  const [startProblem, setStartProblem] = useState<Problem>();
  const [sent, setSent] = useState<{ nodeId: string; pointer: string }>();
  const attempt = useRef(0);

  const polled = usePoll(
    (signal) => (runId ? api<Run>('GET', `/v1/runs/${seg(runId)}`, undefined, { signal }) : Promise.resolve(undefined)),
    [runId],
    1000,
    (d) => !!runId && (!d || d.runId !== runId || isActive(d)),
  );
  const run = polled.data?.runId === runId && runId ? polled.data : first?.runId === runId ? first : undefined;
  const ended = !!run && !isActive(run);
  const read = usePoll(
    (signal) =>
      runId && ended
        ? api<RunResults>('GET', `/v1/runs/${seg(runId)}/results`, undefined, { signal })
        : Promise.resolve(undefined),
    [runId, ended],
    1000,
    (d) => !!runId && ended && (!d || d.runId !== runId || isActive(d)),
  );
  const results = read.data && read.data.runId === runId && !isActive(read.data) ? read.data : undefined;
  const testCases = results?.details?.testCases;
  const painted = useMemo(() => (testCases ? paintResults(testCases) : EMPTY), [testCases]);

  const begin = useCallback(
    async (body: () => ReturnType<typeof debugRunBody>, sentNode?: { nodeId: string; pointer: string }) => {
      const mine = ++attempt.current;
      setStarting(true);
      setStartProblem(undefined);
      setRunId(undefined);
      setFirst(undefined);
      setSent(sentNode);
      let payload;
      try {
        payload = body();
      } catch (err) {
        // sendNodeTestCase: the node is gone or is no API node; nothing is sent.
        setStartProblem({
          title: 'This node cannot be sent alone',
          status: 0,
          code: 'debug-node-not-sendable',
          detail: (err as Error).message,
        });
        setStarting(false);
        return;
      }
      try {
        const doc = await api<Run>('POST', '/v1/test-cases/debug', payload);
        if (mine !== attempt.current) return;
        setFirst(doc);
        setRunId(doc.runId);
      } catch (err) {
        if (mine !== attempt.current) return;
        setStartProblem(problemOf(err));
      } finally {
        if (mine === attempt.current) setStarting(false);
      }
    },
    [],
  );

  const start = useCallback<DebugRun['start']>(
    (doc, environment, variables) => begin(() => debugRunBody(doc, environment, variables)),
    [begin],
  );
  const sendNode = useCallback<DebugRun['sendNode']>(
    (doc, nodeId, environment, variables) => {
      const found = findNode(doc.flow, nodeId);
      return begin(
        () => debugRunBody(sendNodeTestCase(doc, nodeId), environment, variables),
        found ? { nodeId, pointer: found.pointer } : { nodeId, pointer: '' },
      );
    },
    [begin],
  );
  const reset = useCallback(() => {
    attempt.current++;
    setStarting(false);
    setStartProblem(undefined);
    setRunId(undefined);
    setFirst(undefined);
    setSent(undefined);
  }, []);

  let state: DebugState;
  if (starting) state = 'starting';
  else if (startProblem) state = 'failed';
  else if (!runId) state = 'idle';
  else if (!ended || !results) state = 'running';
  else state = run!.status === 'failed' ? 'failed' : 'done';

  const problem = startProblem ?? (runId ? (polled.problem ?? read.problem) : undefined);
  return {
    state,
    run,
    results: painted.results,
    counts: painted.counts,
    testCases: testCases ?? [],
    problem,
    fieldErrors: startProblem ? debugFieldErrors(startProblem, sent?.pointer || undefined) : [],
    sentNodeId: sent?.nodeId,
    start,
    sendNode,
    reset,
  };
}
