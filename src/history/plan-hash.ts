/**
 * Content hashes of what a run executes (docs/history.md "Reproducible runs"): two runs with the
 * same `planHash` ran the same thing, and a test case with the same `definitionHash` in two runs was
 * not changed between them (the flakiness rule, src/history/flaky.ts, counts only such runs).
 *
 * The hash is SHA-256 (hex) of the canonical JSON (object keys sorted, RFC 8785's idea without its
 * number rules: values here are what JSON.parse gives back) of the plan's executable part:
 * test cases (flows, data sets, hooks, folder hooks, auth profile names), variables, servers, auth
 * profiles, the load profile, the variable scope, the timeout and the worker settings. Left out:
 * the run's id, workspace, runner and environment names and start time (they name the run, they do
 * not change what it does), secret values (a sealed secret counts by name only: its ciphertext
 * differs at every sealing, and the hash must not reveal the value), and what judges the run rather
 * than runs it (a baseline, the quarantine list, the resume point). The durability mode is left out
 * too (docs/durability.md "Durability modes"): how a run is made durable does not change what it
 * runs, so a run in `testCase` mode and one in `node` mode of the same plan have the same hash.
 */
import { createHash } from 'node:crypto';
import type { RunPlan, TestCaseDefinition } from '../domain/types';
import { SEALED_PREFIX } from '../secrets/keyring';

/** Marker a sealed value is replaced with before hashing. */
const SEALED = '<sealed>';

/** JSON with object keys sorted at every level and sealed values replaced by a marker; `undefined` members dropped. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonical(value));
}

function canonical(value: unknown): unknown {
  if (typeof value === 'string')
    return value.startsWith(SEALED_PREFIX) && value.split('.').length >= 4 ? SEALED : value;
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : canonical(v)));
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  // A sealed secret variable: its name (the key above it) counts, its ciphertext does not.
  if (record.secret === true && typeof record.sealed === 'string') return { secret: true };
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record).sort()) {
    if (record[key] === undefined) continue;
    out[key] = canonical(record[key]);
  }
  return out;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The executable part of a plan, as hashed (see the module comment). */
export function hashedPlanPart(plan: RunPlan): Record<string, unknown> {
  return {
    testCases: plan.testCases,
    variables: plan.variables,
    servers: plan.servers ?? {},
    authProfile: plan.authProfile,
    authProfiles: plan.authProfiles ?? {},
    performance: plan.performance,
    variableScope: plan.variableScope ?? 'testCase',
    timeoutSeconds: plan.timeoutSeconds,
    settings: plan.settings,
  };
}

/** SHA-256 (hex) of a frozen plan's executable part. */
export function planHash(plan: RunPlan): string {
  return sha256(canonicalJson(hashedPlanPart(plan)));
}

/** SHA-256 (hex) of one test case's definition as frozen (its flow with sub-flows, data sets, hooks, auth profile names). */
export function definitionHash(testCase: TestCaseDefinition): string {
  return sha256(canonicalJson(testCase));
}
