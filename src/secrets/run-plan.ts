/**
 * Secrets of a run's frozen plan (activities/runs.ts `startRun`; docs/security.md "Secrets"): the
 * plan is stored with its secret variables sealed (`{secret: true, sealed}`) and handed to the
 * workflow with them opened (Temporal's payload codec encrypts what reaches its history). Whoever
 * reads a stored plan opens it here, and gets the masker of the run's secrets with it.
 */
import type { RunPlan } from '../domain/types';
import type { KeyRing } from './keyring';
import { SecretMasker } from './mask';
import { openVariables, type StoredVariable } from './variables';

/** A stored plan with its variables opened, and the run's masker (openVariables also has this process's logs mask them). */
export function openPlan(stored: RunPlan, ring: KeyRing): { plan: RunPlan; masker: SecretMasker } {
  const opened = openVariables((stored.variables ?? {}) as Record<string, StoredVariable>, ring);
  return { plan: { ...stored, variables: opened.values }, masker: new SecretMasker(opened.secretValues) };
}
