/**
 * Identifiers: a type prefix and a ULID (time-ordered, 26 Crockford base-32 characters), for example
 * `run_01JD3Z8Q0W5T3V2X1Y0Z9A8B7C`. The prefix says what an id is when it shows up in a log or a
 * URL; ULIDs sort by creation time, so ordering by id is ordering by age (docs/spec-choices.md).
 */
import { monotonicFactory } from 'ulid';

const next = monotonicFactory();

/** Prefixes of every identifier kind Assay hands out. */
export const ID_PREFIXES = {
  workspace: 'ws',
  apiKey: 'key',
  environment: 'env',
  testCase: 'tc',
  runner: 'rnr',
  run: 'run',
  deployment: 'dep',
  delivery: 'dlv',
  design: 'dsg',
  folder: 'fld',
  authProfile: 'aup',
  mockRequest: 'mreq',
  mockCollection: 'mcol',
  file: 'file',
  /** An audit trail event (src/teams/audit.ts). */
  audit: 'aud',
  /** A person signed in through OpenID Connect (src/teams/people.ts). */
  user: 'usr',
  /** A console session (src/teams/sessions.ts). */
  session: 'ses',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

/** A new identifier of `kind`. */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${next()}`;
}

/** Workflow id of a run started through the API: `run-<runId>` (docs/api.md, the run's `temporal` link). */
export function runWorkflowId(runId: string): string {
  return `run-${runId}`;
}
