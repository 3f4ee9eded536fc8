/**
 * Start a run: a runner, an environment, variables that override the
 * environment's for this run (strings, numbers, booleans: `true`, `42` are sent typed), and a
 * timeout in seconds; under "Options" (collapsed), this run's scheduling over the runner's (test
 * cases at once, stop after failures, per-origin limits) and a narrowing of the runner's selection to
 * a folder and tags (docs/parallel.md), all empty by default (inherited, the whole selection).
 * `POST /v1/runs`, then the run's page.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, type Page } from '../api';
import { useAction, useLoad } from '../hooks';
import type { Environment, Run, Runner } from '../types';
import { Empty, Field, PageHeader, ProblemBox, fieldError } from '../ui/kit';
import { ParallelInputs, parallelBody, useParallel } from '../resources/parallel';

/** The body fields the "Options" section sets. */
const OPTION_FIELDS = ['concurrency', 'bail', 'originLimits', 'folder', 'tags'];

/** `a, b ,, c` → `['a', 'b', 'c']`: comma-separated tags, each once. */
export function tagList(text: string): string[] {
  return [
    ...new Set(
      text
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
    ),
  ];
}

/** A variable value as typed: `true`/`false` → boolean, a plain number → number, else the string. */
export function typedValue(text: string): string | number | boolean {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (/^-?(0|[1-9]\d*)(\.\d+)?$/.test(text)) return Number(text);
  return text;
}

export function StartRunPage() {
  const { query, route } = useLocation();
  const runners = useLoad((signal) => api<Page<Runner>>('GET', '/v1/runners?limit=200', undefined, { signal }), []);
  const envs = useLoad(
    (signal) => api<Page<Environment>>('GET', '/v1/environments?limit=200', undefined, { signal }),
    [],
  );
  const [runner, setRunner] = useState(query.runner ?? '');
  const [environment, setEnvironment] = useState(query.environment ?? '');
  const [timeout, setTimeoutS] = useState('1800');
  const [vars, setVars] = useState<{ name: string; value: string }[]>([{ name: '', value: '' }]);
  const parallel = useParallel(undefined);
  const [folder, setFolder] = useState('');
  const [tags, setTags] = useState('');
  const options = useRef<HTMLDetailsElement>(null);
  const start = useAction(async () => {
    const variables: Record<string, string | number | boolean> = {};
    for (const v of vars) if (v.name.trim()) variables[v.name.trim()] = typedValue(v.value);
    const body: Record<string, unknown> = { runner, environment, timeout: Number(timeout) };
    if (Object.keys(variables).length) body.variables = variables;
    // Only what is set is sent: the rest is the runner's (or its whole selection).
    Object.assign(body, parallelBody(parallel.text, 'omit'));
    if (folder.trim()) body.folder = folder.trim();
    if (tagList(tags).length) body.tags = tagList(tags);
    const run = await api<Run>('POST', '/v1/runs', body);
    route(`/runs/${run.runId}`);
  });
  // A refusal naming one of the options opens them, so its error shows at its input.
  useEffect(() => {
    const named = OPTION_FIELDS.some((f) => fieldError(start.problem, f));
    if (named && options.current) options.current.open = true;
  }, [start.problem]);

  const noRunners = runners.data && runners.data.items.length === 0;
  const noEnvs = envs.data && envs.data.items.length === 0;
  return (
    <>
      <PageHeader title="Start a run" sub="Runs a runner's test cases against an environment." />
      <ProblemBox problem={runners.problem ?? envs.problem} />
      {(noRunners || noEnvs) && (
        <Empty title={noRunners ? 'No runners yet' : 'No environments yet'}>
          {noRunners ? <a href="/runners">Create a runner</a> : <a href="/environments">Create an environment</a>}{' '}
          first.
        </Empty>
      )}
      <form
        class="card"
        onSubmit={(e) => {
          e.preventDefault();
          void start.run();
        }}
      >
        <div class="row">
          <Field label="Runner" error={fieldError(start.problem, 'runner')}>
            <select required value={runner} onChange={(e) => setRunner(e.currentTarget.value)}>
              <option value="">Choose a runner…</option>
              {runners.data?.items.map((r) => (
                <option key={r.name}>{r.name}</option>
              ))}
            </select>
          </Field>
          <Field label="Environment" error={fieldError(start.problem, 'environment')}>
            <select required value={environment} onChange={(e) => setEnvironment(e.currentTarget.value)}>
              <option value="">Choose an environment…</option>
              {envs.data?.items.map((r) => (
                <option key={r.name}>{r.name}</option>
              ))}
            </select>
          </Field>
          <Field label="Timeout (seconds)" error={fieldError(start.problem, 'timeout')}>
            <input type="number" min={1} required value={timeout} onInput={(e) => setTimeoutS(e.currentTarget.value)} />
          </Field>
        </div>
        <fieldset class="vars">
          <legend>Variables for this run (override the environment's)</legend>
          {vars.map((v, i) => (
            <div class="row" key={i}>
              <Field label={`Name ${i + 1}`}>
                <input
                  value={v.name}
                  onInput={(e) => setVars(vars.map((x, j) => (j === i ? { ...x, name: e.currentTarget.value } : x)))}
                />
              </Field>
              <Field label={`Value ${i + 1}`} hint="true, false and numbers are sent typed">
                <input
                  value={v.value}
                  onInput={(e) => setVars(vars.map((x, j) => (j === i ? { ...x, value: e.currentTarget.value } : x)))}
                />
              </Field>
              <button
                type="button"
                class="secondary small"
                aria-label={`Remove variable ${i + 1}`}
                onClick={() => setVars(vars.filter((_, j) => j !== i))}
              >
                Remove
              </button>
            </div>
          ))}
          <button type="button" class="secondary small" onClick={() => setVars([...vars, { name: '', value: '' }])}>
            Add variable
          </button>
        </fieldset>
        <details class="run-options" ref={options}>
          <summary>Options: test cases at once, stop after failures, part of the runner</summary>
          <ParallelInputs state={parallel} problem={start.problem} inherit="the runner’s" />
          <div class="row">
            <Field
              label="Only the folder"
              hint="only its test cases in this folder or below it; empty: all of them"
              error={fieldError(start.problem, 'folder')}
            >
              <input value={folder} onInput={(e) => setFolder(e.currentTarget.value)} />
            </Field>
            <Field
              label="Only the tags"
              hint="comma-separated; only its test cases carrying every one; empty: all of them"
              error={fieldError(start.problem, 'tags')}
            >
              <input value={tags} onInput={(e) => setTags(e.currentTarget.value)} />
            </Field>
          </div>
        </details>
        <ProblemBox problem={start.problem} />
        <button type="submit" disabled={start.busy || !runner || !environment}>
          {start.busy ? 'Starting…' : 'Start run'}
        </button>
      </form>
    </>
  );
}
