/**
 * The `json` reporter (docs/reports.md "json"): the results document exactly as
 * `GET /v1/runs/{runId}/results` answered it, plus `run` (the run document, `GET /v1/runs/{runId}`)
 * and `links` (`console`, `temporal`, `results`: where a person looks at the run; they replace the
 * API's own relative `links`). Pretty-printed, two spaces, ending with a newline.
 */
import type { ReportInput } from './model';

/** `{...results, run, links}` as pretty JSON. */
export function renderJson(input: ReportInput): string {
  return `${JSON.stringify({ ...input.results, run: input.run, links: input.links }, null, 2)}\n`;
}
