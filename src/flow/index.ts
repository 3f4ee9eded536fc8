/**
 * The flow interpreter's public surface: the interpreter ({@link FlowInterpreter}), its port
 * ({@link InterpreterPort}, implemented by workflows/workflow-port.ts and activities/direct-port.ts),
 * its types and the pure helpers others reuse.
 */
export { FlowInterpreter } from './interpreter';
export type { InterpreterPort } from './port';
export {
  DeadlineReached,
  emptyState,
  type FlowState,
  type LoopFrame,
  type LoopSegmentInput,
  type LoopSegmentOutput,
  type NodeContext,
} from './types';
export { KEPT_ITERATIONS, compactState } from './loop';
export { resolveRequest } from './api-node';
export { RESUME_STATE_BYTES, type ResumeOptions, type ResumePoint } from './resume';
export {
  testCaseSegments,
  waitsDurably,
  type TestCaseSegment,
  type TestCaseSegmentOutput,
  type TestCaseSegmentRequest,
} from './segments';
