/**
 * `make bench` part: the contract tests `assay import openapi` makes from each public description
 * in test/fixtures/openapi/public (SOURCES.md: 89 descriptions of 51 vendors, 2 KB to 3.8 MB), run
 * against the mocks `POST /v1/designs/import` makes from the same description, in process
 * (test/helpers/openapi-contract.ts: each assertion evaluated as a run evaluates it, on the response
 * the mock engine answers by default). The goal (docs/benchmarks.md "OpenAPI mocks against their
 * own contract tests"): at least 99.5 % pass, each failure explained by the import's report.
 *
 * Prints a Markdown table for docs/benchmarks.md; `BENCH_OPENAPI_VERBOSE=1` lists every failure.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { contractAgainstMocks, OPENAPI_FIXTURES } from '../test/helpers/openapi-contract';

async function main(): Promise<void> {
  const files = fs
    .readdirSync(OPENAPI_FIXTURES)
    .filter((f) => f.endsWith('.gz'))
    .sort();
  const rows: string[] = [];
  let operations = 0;
  let passed = 0;
  let explained = 0;
  let failed = 0;
  const failures: string[] = [];
  for (const file of files) {
    const bytes = zlib.gunzipSync(fs.readFileSync(path.join(OPENAPI_FIXTURES, file)));
    const outcome = await contractAgainstMocks(bytes.toString('utf8'));
    operations += outcome.operations;
    passed += outcome.passed;
    failed += outcome.failures.length;
    explained += outcome.failures.filter((f) => f.explainedBy).length;
    for (const f of outcome.failures)
      failures.push(
        `- ${file} ${f.operation}: ${f.why.join('; ').slice(0, 300)}\n  report: ${f.explainedBy ?? '(none)'}`,
      );
    rows.push(
      `| ${file.replace(/\.gz$/, '')} | ${Math.round(bytes.length / 1024)} | ${outcome.operations} | ${outcome.passed} | ${outcome.warnings.length} | ${Math.round(outcome.importMs)} |`,
    );
  }
  console.log(
    `\n### OpenAPI mocks against their own contract tests (${os.cpus().length} CPUs, Node ${process.version})\n`,
  );
  console.log('| description | KB | contract tests | pass against the mocks | import warnings | mock import ms |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const row of rows) console.log(row);
  console.log(
    `| **all ${files.length}** | | **${operations}** | **${passed} (${((100 * passed) / operations).toFixed(2)} %)** | | |`,
  );
  console.log(`\n${failed} failing, ${explained} of them explained by the import report.`);
  if (process.env.BENCH_OPENAPI_VERBOSE === '1') console.log(`\n${failures.join('\n')}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
