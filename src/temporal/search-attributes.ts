/**
 * Custom search attributes that make runs findable in the Temporal Web UI and with `temporal
 * workflow list --query`: `AssayWorkspace`, `AssayRunner`, `AssayEnvironment`, `AssayTrigger`,
 * `AssayRunId` (all Keyword). Example query: `AssayRunner = "smoke" AND AssayEnvironment = "staging"`.
 * Every run workflow carries `AssayRunId` (a scheduled run's workflow id is Temporal's
 * `run-scheduled-<deploymentId>-<time>`, so `AssayRunId = "run_…"` is the one way that finds any run).
 *
 * The service registers them itself at start-up (API and worker), on the dev server and on a real
 * cluster alike, through the operator service. Registration is idempotent: existing attributes are
 * left alone. (With `--db-filename`, the dev server's own `--search-attribute` flag is ignored for
 * an existing namespace, so start-up registration is the reliable path.)
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { RUN_ID_SEARCH_ATTRIBUTE } from '../domain/run-workflow';

export const SA_WORKSPACE = defineSearchAttributeKey('AssayWorkspace', SearchAttributeType.KEYWORD);
export const SA_RUNNER = defineSearchAttributeKey('AssayRunner', SearchAttributeType.KEYWORD);
export const SA_ENVIRONMENT = defineSearchAttributeKey('AssayEnvironment', SearchAttributeType.KEYWORD);
export const SA_TRIGGER = defineSearchAttributeKey('AssayTrigger', SearchAttributeType.KEYWORD);
export const SA_RUN_ID = RUN_ID_SEARCH_ATTRIBUTE;

const ALL = [SA_WORKSPACE, SA_RUNNER, SA_ENVIRONMENT, SA_TRIGGER, SA_RUN_ID];

/**
 * Adds the attributes missing from `namespace`.
 * @returns the names added now (empty when all existed).
 */
export async function registerSearchAttributes(
  connection: { operatorService: temporal.api.operatorservice.v1.OperatorService },
  namespace: string,
): Promise<string[]> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const existing = new Set(Object.keys(customAttributes ?? {}));
  const missing = ALL.filter((k) => !existing.has(k.name));
  if (missing.length === 0) return [];
  const KEYWORD = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((k) => [k.name, KEYWORD])),
    });
  } catch (err) {
    // Another process (API or worker) registered them at the same moment: fine when they now exist.
    const again = await connection.operatorService.listSearchAttributes({ namespace });
    const now = new Set(Object.keys(again.customAttributes ?? {}));
    if (!missing.every((k) => now.has(k.name))) throw err;
  }
  return missing.map((k) => k.name);
}
